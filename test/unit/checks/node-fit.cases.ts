/** NodeFit (NF): pending install pods against the allocatable of Ready, schedulable nodes. */
import { nodeFit } from '../../../src/checks/node-fit.ts';
import { backend, failed, given, ok, pod, type Case, type CheckTable } from './fixtures.ts';
import { CONTROLLER_LABELS, live, node, pendingPod, requests } from './install-fixtures.ts';

const P = 'pod/ns1/p';
const cpuNode = node('cpu-node', { cpu: '16', memory: '64Gi', pods: '110' });
const gpuNode = node('gpu-node', { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '4' });

/** One pod `p` requesting `req` (one container) against `nodes`. */
function fit(name: string, req: Record<string, string>, nodes: Parameters<typeof node>[1][], expected: Case['expected']): Case {
  return {
    name,
    input: live({ pods: ok([pendingPod('p', requests([req]))]), nodes: ok(nodes.map((a, i) => node(`n${i}`, a))) }),
    expected,
  };
}

/** A request of `n` extended resources `example.com/r<i>`, one each, after a CPU request of 1. */
const extended = (n: number) => ({
  cpu: '1',
  ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`example.com/r${String(i).padStart(3, '0')}`, '1'])),
});
/** A message of at most `n` characters. */
const atMost = (n: number) => new RegExp(`^.{1,${n}}$`, 'su');

export const nodeFitCases: readonly Case[] = [
  fit(
    'a pod requesting 7 extended resources no node has → NF001 naming every one',
    extended(7),
    [{ cpu: '4' }],
    [
      [
        'NF001',
        P,
        ['cpu 1, example.com/r000 1', 'example.com/r006 1)', 'n0 lacks example.com/r000 (allocatable 0) and example.com/r001'],
        ['more'],
      ],
    ],
  ),
  fit(
    'a pod requesting 1000 extended resources no node has → NF001 naming 8 and counting the rest',
    extended(1000),
    [{ cpu: '4' }, { cpu: '8' }],
    [
      [
        'NF001',
        P,
        ['cpu 1, example.com/r000 1', 'example.com/r006 1 and 993 more', 'example.com/r007 (allocatable 0) and 992 more', atMost(1500)],
        ['example.com/r008'],
      ],
    ],
  ),
  {
    name: 'fits one node → NF003 naming it',
    input: live({ pods: ok([pendingPod('p', requests([{ cpu: '500m', memory: '1Gi' }]))]), nodes: ok([cpuNode]) }),
    expected: [['NF003', P, ['cpu-node', 'cpu 500m', 'memory 1Gi']]],
  },
  {
    name: 'CPU on one node and the GPU on another is not a fit → NF001 naming what each lacks',
    input: live({ pods: ok([pendingPod('p', requests([{ cpu: '4', 'nvidia.com/gpu': '1' }]))]), nodes: ok([cpuNode, gpuNode]) }),
    expected: [
      ['NF001', P, ['cpu 4, nvidia.com/gpu 1', 'cpu-node lacks nvidia.com/gpu (allocatable 0)', 'gpu-node lacks cpu (allocatable 2)']],
    ],
  },
  {
    name: 'the GPU and the CPU on the same node → NF003 naming only that node',
    input: live({ pods: ok([pendingPod('p', requests([{ cpu: '1', 'nvidia.com/gpu': '2' }]))]), nodes: ok([cpuNode, gpuNode]) }),
    expected: [['NF003', P, ['(gpu-node)'], ['cpu-node']]],
  },
  {
    name: 'a NotReady node that would fit is ignored → NF001',
    input: live({
      pods: ok([pendingPod('p', requests([{ 'nvidia.com/gpu': '1' }]))]),
      nodes: ok([cpuNode, node('sick-gpu', { 'nvidia.com/gpu': '8' }, { ready: false })]),
    }),
    expected: [['NF001', P, ['cpu-node lacks nvidia.com/gpu', 'sick-gpu NotReady']]],
  },
  {
    name: 'a cordoned node that would fit is ignored → NF001',
    input: live({
      pods: ok([pendingPod('p', requests([{ 'nvidia.com/gpu': '1' }]))]),
      nodes: ok([cpuNode, node('drained-gpu', { 'nvidia.com/gpu': '8' }, { unschedulable: true })]),
    }),
    expected: [['NF001', P, ['drained-gpu cordoned']]],
  },
  {
    name: 'no Ready, schedulable node at all → NF001 saying so',
    input: live({
      pods: ok([pendingPod('p', requests([{ cpu: '100m' }]))]),
      nodes: ok([node('a', { cpu: '8' }, { ready: false }), node('b', { cpu: '8' }, { unschedulable: true })]),
    }),
    expected: [['NF001', P, ['no node is Ready and schedulable (2 listed', 'a NotReady', 'b cordoned']]],
  },
  {
    name: 'an empty node list → NF001',
    input: live({ pods: ok([pendingPod('p', undefined)]) }),
    expected: [['NF001', P, ['0 listed', 'no resources']]],
  },
  {
    name: 'no requests at all fit any Ready node → NF003',
    input: live({ pods: ok([pendingPod('p', undefined)]), nodes: ok([gpuNode]) }),
    expected: [['NF003', P, ['no resources']]],
  },
  // Quantities in every format, compared exactly at the boundary.
  fit('cpu 1.5 against allocatable 1500m: exactly fits', { cpu: '1.5' }, [{ cpu: '1500m' }], [['NF003', P, ['cpu 1500m']]]),
  fit(
    'cpu 1501m against allocatable 1.5: one millicore short',
    { cpu: '1501m' },
    [{ cpu: '1.5' }],
    [['NF001', P, ['cpu 1501m', 'lacks cpu (allocatable 1500m)']]],
  ),
  fit(
    'memory 16Gi against 17179869184 bytes: exactly fits',
    { memory: '16Gi' },
    [{ memory: '17179869184' }],
    [['NF003', P, ['memory 16Gi']]],
  ),
  fit(
    'memory 16Gi against 17179869183 bytes: one byte short',
    { memory: '16Gi' },
    [{ memory: '17179869183' }],
    [['NF001', P, ['lacks memory']]],
  ),
  fit('1e3 equals 1k', { 'example.com/widget': '1e3' }, [{ 'example.com/widget': '1k' }], [['NF003', P, ['example.com/widget 1k']]]),
  fit('64M is 64 000 000, less than 64Mi', { memory: '64Mi' }, [{ memory: '64M' }], [['NF001', P, ['memory 64Mi', 'allocatable 64M']]]),
  fit('1Ki is 1024', { memory: '1Ki' }, [{ memory: '1024' }], [['NF003', P]]),
  fit('2E against 1E', { 'example.com/units': '2E' }, [{ 'example.com/units': '1E' }], [['NF001', P, ['example.com/units 2E']]]),
  fit('100u cpu against 1m', { cpu: '100u' }, [{ cpu: '1m' }], [['NF003', P]]),
  fit(
    'a resource no node has → NF001',
    { 'example.com/fpga': '1' },
    [{ cpu: '64' }],
    [['NF001', P, ['lacks example.com/fpga (allocatable 0)']]],
  ),
  {
    name: 'init containers count by their max: a 3-CPU init container beats two 1-CPU containers',
    input: live({
      pods: ok([
        pendingPod(
          'p',
          requests([{ cpu: '1' }, { cpu: '1' }], {
            initContainers: [
              { requests: { cpu: '3' }, sidecar: false },
              { requests: { cpu: '500m' }, sidecar: false },
            ],
          }),
        ),
      ]),
      nodes: ok([node('small', { cpu: '2500m' })]),
    }),
    expected: [['NF001', P, ['cpu 3', 'allocatable 2500m']]],
  },
  {
    name: 'init containers do not add up: two 2-CPU init containers fit a 2-CPU node',
    input: live({
      pods: ok([
        pendingPod(
          'p',
          requests([{ cpu: '1' }], {
            initContainers: [
              { requests: { cpu: '2' }, sidecar: false },
              { requests: { cpu: '2' }, sidecar: false },
            ],
          }),
        ),
      ]),
      nodes: ok([node('two', { cpu: '2' })]),
    }),
    expected: [['NF003', P, ['cpu 2']]],
  },
  {
    name: 'a sidecar init container runs beside the containers: its request adds up',
    input: live({
      pods: ok([pendingPod('p', requests([{ cpu: '1' }], { initContainers: [{ requests: { cpu: '1' }, sidecar: true }] }))]),
      nodes: ok([node('one-and-a-half', { cpu: '1500m' })]),
    }),
    expected: [['NF001', P, ['cpu 2']]],
  },
  {
    name: 'an init container after a sidecar runs beside it',
    input: live({
      pods: ok([
        pendingPod(
          'p',
          requests([{ cpu: '1' }], {
            initContainers: [
              { requests: { cpu: '1' }, sidecar: true },
              { requests: { cpu: '4' }, sidecar: false },
            ],
          }),
        ),
      ]),
      nodes: ok([node('four', { cpu: '4' })]),
    }),
    expected: [['NF001', P, ['cpu 5']]],
  },
  {
    name: 'pod overhead is added on top',
    input: live({
      pods: ok([pendingPod('p', requests([{ cpu: '1' }], { overhead: { cpu: '250m' } }))]),
      nodes: ok([node('one', { cpu: '1' })]),
    }),
    expected: [['NF001', P, ['cpu 1250m']]],
  },
  {
    name: 'pod-level requests replace the container sum for what they name',
    input: live({
      pods: ok([pendingPod('p', requests([{ cpu: '1' }, { cpu: '1', memory: '1Gi' }], { podLevel: { cpu: '1500m' } }))]),
      nodes: ok([node('one-and-a-half', { cpu: '1500m', memory: '2Gi' })]),
    }),
    expected: [['NF003', P, ['cpu 1500m, memory 1Gi']]],
  },
  {
    name: 'Unschedulable although a node fits → NF002 quoting the scheduler',
    input: live({
      pods: ok([pendingPod('p', requests([{ cpu: '1' }]), { unschedulable: '0/1 nodes are available: 1 Insufficient cpu.' })]),
      nodes: ok([cpuNode]),
    }),
    expected: [['NF002', P, ['"0/1 nodes are available: 1 Insufficient cpu."', 'cpu-node has the allocatable for cpu 1']]],
  },
  {
    name: 'Unschedulable and no node fits → NF001, not NF002',
    input: live({
      pods: ok([pendingPod('p', requests([{ 'nvidia.com/gpu': '1' }]), { unschedulable: '0/1 nodes are available' })]),
      nodes: ok([cpuNode]),
    }),
    expected: [['NF001', P]],
  },
  {
    name: 'bound, running, finished and non-install pods are not judged; server, controller and engine pods are',
    input: live({
      cacheBackends: ok([backend({ matchLabels: { app: 'engine' } })]),
      pods: ok([
        pendingPod('bound', requests([{ 'nvidia.com/gpu': '9' }]), { nodeName: 'n1' }),
        pendingPod('running', requests([{ 'nvidia.com/gpu': '9' }]), { phase: 'Running' }),
        pendingPod('done', requests([{ 'nvidia.com/gpu': '9' }]), { phase: 'Succeeded' }),
        pod('stranger', { phase: 'Pending', requests: requests([{ 'nvidia.com/gpu': '9' }]) }),
        pod('ctrl', { labels: { ...CONTROLLER_LABELS }, phase: 'Pending' }),
        pod('engine-0', { labels: { app: 'engine' }, phase: 'Pending', requests: requests([{ 'nvidia.com/gpu': '9' }]) }),
      ]),
      nodes: ok([gpuNode]),
    }),
    expected: [
      ['NF003', 'pod/ns1/ctrl'],
      ['NF001', 'pod/ns1/engine-0', ['nvidia.com/gpu 9']],
    ],
  },
  {
    name: 'no pending install pod → nothing, even when the nodes read failed',
    input: live({ pods: ok([pod('web')]), nodes: failed('nodes is forbidden') }),
    expected: [],
  },
  {
    name: 'pending pods and the nodes read failed → API001 Node',
    input: live({ pods: ok([pendingPod('p', undefined)]), nodes: failed('nodes is forbidden') }),
    expected: [['API001', 'Node', ['listing Node objects failed', 'nodes is forbidden']]],
  },
  {
    name: 'pods read failed → API001 Pod',
    input: live({ pods: failed('connection refused') }),
    expected: [['API001', 'Pod', ['connection refused']]],
  },
  { name: 'nodes not gathered (offline input) → nothing', input: given({ pods: ok([pendingPod('p', undefined)]) }), expected: [] },

  // --- quantities as the API server reads them
  fit(
    'a request of 1e400 CPU (the API server stores 10e399) fits no node → NF001, never a fit',
    { cpu: '1e400' },
    [{ cpu: '16' }],
    [['NF001', P, ['cpu 10e399', 'cpu (allocatable 16)']]],
  ),
  fit('a huge allocatable holds a huge request exactly → NF003', { cpu: '1e400' }, [{ cpu: '10e399' }], [['NF003', P]]),
  fit('one nano-unit more than a huge allocatable → NF001', { cpu: '1.000000000000000001e400' }, [{ cpu: '1e400' }], [['NF001', P]]),
  fit(
    'a request the API server would refuse → NF004 naming it, fit not judged',
    { cpu: '2 cores', memory: '1Gi' },
    [{ cpu: '16', memory: '64Gi' }],
    [['NF004', P, ['cpu "2 cores"', 'would refuse'], ['allocatable']]],
  ),
  fit(
    'a negative request → NF004, never dropped into a fit',
    { cpu: '-1', 'nvidia.com/gpu': '1' },
    [{ cpu: '16' }],
    [['NF004', P, ['cpu "-1"']]],
  ),
];

export const nodeFitTable: CheckTable = { check: nodeFit, cases: nodeFitCases };
