// The pseudo-locale's text (locales.ts, PSEUDO_LOCALE): each letter of English swapped for an
// accented one, a third longer, in brackets. Only the text between an ICU message's placeholders
// and tags comes here (compileMessage's mapText), so `{count}` and `<0>` keep working.
const ACCENTED: Readonly<Record<string, string>> = {
  a: 'á',
  b: 'ƀ',
  c: 'ç',
  d: 'ð',
  e: 'é',
  f: 'ƒ',
  g: 'ĝ',
  h: 'ĥ',
  i: 'í',
  j: 'ĵ',
  k: 'ķ',
  l: 'ĺ',
  m: 'ɱ',
  n: 'ñ',
  o: 'ó',
  p: 'þ',
  q: 'ǫ',
  r: 'ŕ',
  s: 'š',
  t: 'ţ',
  u: 'ú',
  v: 'ṽ',
  w: 'ŵ',
  x: 'ẋ',
  y: 'ý',
  z: 'ž',
  A: 'Á',
  B: 'Ɓ',
  C: 'Ç',
  D: 'Ð',
  E: 'É',
  F: 'Ƒ',
  G: 'Ĝ',
  H: 'Ĥ',
  I: 'Í',
  J: 'Ĵ',
  K: 'Ķ',
  L: 'Ĺ',
  M: 'Ṁ',
  N: 'Ñ',
  O: 'Ó',
  P: 'Þ',
  Q: 'Ǫ',
  R: 'Ŕ',
  S: 'Š',
  T: 'Ţ',
  U: 'Ú',
  V: 'Ṽ',
  W: 'Ŵ',
  X: 'Ẋ',
  Y: 'Ý',
  Z: 'Ž',
};

/** A piece of English text as the pseudo-locale shows it. */
export function pseudoLocalize(text: string): string {
  if (text.trim() === '') return text;
  const accented = [...text].map((letter) => ACCENTED[letter] ?? letter).join('');
  // German runs about a third longer than English: the padding finds what that breaks.
  const padding = '~'.repeat(Math.ceil(text.length / 3));
  return `⟦${accented}${padding}⟧`;
}
