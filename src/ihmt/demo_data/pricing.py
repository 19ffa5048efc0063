"""Price calculation for the shop: discounts, VAT and rounding in one place."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

VAT_RATES = {"ES": Decimal("0.21"), "PT": Decimal("0.23"), "FR": Decimal("0.20")}


@dataclass(frozen=True)
class Line:
    sku: str
    unit_price: Decimal
    quantity: int


def apply_discount(total: Decimal, code: str | None) -> Decimal:
    """Codes are flat percentages; unknown codes are ignored rather than rejected."""
    percent = {"WELCOME10": 10, "SPRING25": 25}.get((code or "").upper(), 0)
    return total * (Decimal(100 - percent) / 100)


def vat_for(country: str) -> Decimal:
    """We charge the buyer's country VAT (one-stop-shop scheme); default to Spain."""
    return VAT_RATES.get(country.upper(), VAT_RATES["ES"])


def checkout_total(lines: list[Line], country: str, code: str | None = None) -> Decimal:
    """Banker's rounding at the very end only, so cents never drift between lines."""
    subtotal = sum((ln.unit_price * ln.quantity for ln in lines), Decimal(0))
    discounted = apply_discount(subtotal, code)
    gross = discounted * (1 + vat_for(country))
    return gross.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
