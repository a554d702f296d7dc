/**
 * Columns about the buyer of an order rather than the holder of a ticket (Tito's `Order
 * Email`, `Order Postal Code`, `Billing Country`, `Buyer Title`), told by their header. Such a
 * value is the same on every ticket of the order: copied to a holder's profile, or read as a
 * holder's e-mail, it would reach every holder (docs/mapping.md, "Columns no mapping reads").
 */

/** Words as a person reads a header: `qr_code_url` is qr, code, url; `LinkedIn` stays one word. */
export function headerWords(column: string): string[] {
  return column
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Who a column is about when it is not the holder. */
const BUYER = new Set(['order', 'buyer', 'purchaser', 'billing', 'invoice']);

/**
 * What of an order is not its buyer's person: its reference, dates, state of payment and
 * amounts (`Order Reference`, `Order Created Date`, `Order Discount Code`).
 */
const ORDER_FACTS = new Set([
  'reference',
  'ref',
  'code',
  'id',
  'number',
  'no',
  'date',
  'time',
  'created',
  'updated',
  'completed',
  'complete',
  'status',
  'total',
  'amount',
  'price',
  'currency',
  'discount',
  'quantity',
  'type',
  'source',
  'channel',
]);

/** Whether the header names something of the buyer's person: a buyer word and a word no order fact has. */
export function isBuyersColumn(column: string): boolean {
  const words = headerWords(column);
  return (
    words.some((word) => BUYER.has(word)) && words.some((word) => !BUYER.has(word) && !ORDER_FACTS.has(word))
  );
}
