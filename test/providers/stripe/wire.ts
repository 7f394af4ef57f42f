/** Stripe's wire format as the replica reads it: form-encoded request bodies in bracket notation. */

export type Form = { [key: string]: string | Form };

/** Stripe's bracket notation (`metadata[a]=b`, `expand[0]=x`) → nested objects. */
export function parseForm(body: string): Form {
  const result: Form = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let target: Form = result;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) {
        target[part] = value;
      } else {
        const next = target[part];
        target = typeof next === 'object' ? next : (target[part] = {});
      }
    });
  }
  return result;
}

export const text = (form: Form, key: string): string | undefined => (typeof form[key] === 'string' ? form[key] : undefined);
export const record = (form: Form, key: string): Record<string, string> => {
  const value = form[key];
  return typeof value === 'object' ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : {};
};
