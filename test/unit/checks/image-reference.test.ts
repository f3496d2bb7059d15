import { describe, expect, it } from 'vitest';
import { registryOf } from '../../../src/checks/image-reference.ts';

describe('registryOf', () => {
  it.each([
    ['nginx', 'docker.io'],
    ['library/nginx:1.27', 'docker.io'],
    ['vllm/vllm-openai@sha256:abc', 'docker.io'],
    ['ghcr.io/inference-cache/inferencecache-doctor:0.1.0', 'ghcr.io'],
    ['127.0.0.1:5000/inferencecache-doctor:0.1.0', '127.0.0.1:5000'],
    ['localhost/engine:test', 'localhost'],
    ['registry:5000/x', 'registry:5000'],
  ])('%s → %s', (image, registry) => expect(registryOf(image)).toBe(registry));
});
