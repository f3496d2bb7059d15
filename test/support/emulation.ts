// Running the linux/arm64 executable on this amd64 machine: Debian's qemu-user (user-mode emulation of
// one program) with the arm64 C and C++ runtimes of its cross packages as the program's root for
// libraries. .ci/run installs them; elsewhere a test that needs them skips with this message.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** The arm64 runtime libraries of Debian's libc6-arm64-cross and libstdc++6-arm64-cross. */
export const ARM64_SYSROOT = '/usr/aarch64-linux-gnu';

/** Why the arm64 executable cannot be run here ('' when it can); under CI=true it must, and this throws. */
export function arm64EmulationMissing(): string {
  let why = '';
  if (process.arch !== 'x64') why = `emulation is set up for an amd64 machine, this is ${process.arch}`;
  else if (spawnSync('qemu-aarch64', ['-version']).error !== undefined) why = 'qemu-aarch64 is not installed (Debian: qemu-user)';
  else if (!existsSync(`${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1`) || !existsSync(`${ARM64_SYSROOT}/lib/libstdc++.so.6`))
    why = `no arm64 runtime libraries in ${ARM64_SYSROOT} (Debian: libc6-arm64-cross, libstdc++6-arm64-cross)`;
  if (why !== '' && process.env['CI'] === 'true') throw new Error(`the arm64 executable must run under CI: ${why}`);
  return why;
}

/** The command that runs the arm64 program `file` under emulation. */
export function underArm64Emulation(file: string): string[] {
  return ['qemu-aarch64', '-L', ARM64_SYSROOT, file];
}
