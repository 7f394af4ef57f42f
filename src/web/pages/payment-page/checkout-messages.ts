/**
 * What the customer reads about each problem of the sandbox card form. The server's check
 * (routes.tsx) and the in-browser check (checkout-script.ts) use the same words, so a mistake reads
 * the same whether JavaScript caught it while typing or the server caught it after submitting.
 */
export const checkoutMessages = {
  cardNumberMissing: 'Enter your card number.',
  cardNumberInvalid: 'This card number is not valid. Check it and try again.',
  expiryMissing: 'Enter the expiry date (MM / YY).',
  expiryUnreadable: 'Enter the expiry date as MM / YY, for example 04 / 28.',
  expiryMonth: 'That is not a valid month: enter a month from 01 to 12.',
  expiryYear: 'Check the expiry year: it is too far in the future.',
  expiryPast: 'This card has expired. Check the date, or use another card.',
  cvcMissing: 'Enter the security code.',
  cvcInvalid: 'Enter the 3-digit security code (4 digits on the front for American Express).',
  nameMissing: 'Enter the name on the card.',
  nameInvalid: 'Enter the name as it appears on the card.',
} as const;
