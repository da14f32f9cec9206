// Diverging blue–orange scale (safe for the common colour-vision deficiencies):
// orange = the word pushes toward the explained class, blue = it pushes away, white = no effect.
const ORANGE: [number, number, number] = [230, 97, 1]
const BLUE: [number, number, number] = [33, 102, 172]

function mix(c: [number, number, number], t: number): string {
  const ch = c.map((v) => Math.round(255 + (v - 255) * t))
  return `rgb(${ch[0]}, ${ch[1]}, ${ch[2]})`
}

/** Background for a signed value in [-1, 1]. */
export function divergingColor(v: number): string {
  const t = Math.max(-1, Math.min(1, Number.isFinite(v) ? v : 0))
  return t >= 0 ? mix(ORANGE, t) : mix(BLUE, -t)
}

/** Dark text on light cells, white text on saturated ones (keeps contrast readable). */
export function textColor(v: number): string {
  return Math.abs(v) > 0.6 ? '#fff' : '#1a1a1a'
}

/**
 * Signed intensity of each word: its share relative to the example's largest share, with the
 * sign of its raw score. Relative so that the strongest word of every example is fully coloured.
 */
export function intensities(shares: number[], scores: number[]): number[] {
  const max = Math.max(0, ...shares)
  return shares.map((s, i) => (max > 0 ? (s / max) * (Math.sign(scores[i] ?? 0) || 1) : 0))
}
