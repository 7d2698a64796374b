import { money } from "./money.js";

export class Cart {
  constructor(lines) {
    this.lines = lines;
  }

  total(rate = 0) {
    const sum = this.lines.reduce((acc, l) => acc + l.price * l.qty, 0);
    return rate ? sum + (sum * rate) / 100 : sum;
  }

  get size() {
    return this.lines.length;
  }
}


export const vat = () => 20;
