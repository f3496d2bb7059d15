// postject ships no types; this is the one function scripts/build-exe.ts calls (its README documents it).
declare module 'postject' {
  /** Writes `data` into the executable `file` as the resource `name`, and arms `sentinelFuse`. */
  export function inject(
    file: string,
    name: string,
    data: Buffer,
    options?: { readonly sentinelFuse?: string; readonly machoSegmentName?: string; readonly overwrite?: boolean },
  ): Promise<void>;
}
