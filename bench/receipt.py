# ruff: noqa: E501 - an HTML email, as written: its lines are the template's
"""A realistic transactional email for the cloud model's sends: an order receipt of ~8 KB of HTML
(inline styles, a table of varied lines, addresses, footer) and its ~2 KB text part, different for
every index (names, items, prices, order numbers), as a shop's receipts are.

bench/run.py's body (one sentence repeated 20 times, ~1.1 KB of HTML) compresses ~20x, far better
than real mail (3-6x); the cloud model's write units for a message body are measured on this one.
Deterministic: the same index gives the same receipt.
"""

from __future__ import annotations

import random

_FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim", "Margaret", "Linus")
_LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman", "Hamilton")
_STREETS = ("Harbour Road", "Elm Street", "Rue des Lilas", "Kastanienallee", "Via Roma", "Calle Mayor", "Oak Lane")
_CITIES = ("Bristol", "Portland", "Lyon", "Berlin", "Bologna", "Sevilla", "Ghent", "Aarhus", "Kraków")
_ADJECTIVES = ("Organic", "Recycled", "Merino", "Waxed", "Ceramic", "Walnut", "Linen", "Brushed", "Insulated")
_THINGS = (
    "Cotton T-shirt",
    "Travel Mug 350 ml",
    "Wool Socks (3 pairs)",
    "Canvas Tote Bag",
    "Notebook A5 dotted",
    "Desk Lamp",
    "Water Bottle 750 ml",
    "Rain Jacket",
    "Espresso Cups (set of 2)",
    "Cutting Board",
    "Bike Light Set",
    "Phone Case",
)
_COLOURS = ("navy", "sage", "charcoal", "ochre", "rust", "ivory", "forest", "slate")
_SIZES = ("XS", "S", "M", "L", "XL", "one size")
_CELL = 'style="padding:8px 12px;border-bottom:1px solid #e6e8eb;font-family:Helvetica,Arial,sans-serif;font-size:14px;color:#1f2933"'


def _lines(rng: random.Random) -> list[tuple[str, str, int, int]]:
    lines = []
    for _ in range(rng.randint(5, 8)):
        name = f"{rng.choice(_ADJECTIVES)} {rng.choice(_THINGS)} - {rng.choice(_COLOURS)}, {rng.choice(_SIZES)}"
        sku = f"{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}{rng.randint(10000, 99999)}-{rng.randint(100, 999)}"
        lines.append((name, sku, rng.randint(1, 3), rng.randint(399, 18999)))
    return lines


def _money(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def receipt(index: int) -> tuple[str, str]:
    """(html, text) of receipt `index`."""
    rng = random.Random(index)
    name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    order = f"{rng.randint(100, 999)}-{rng.randint(1000000, 9999999)}-{index}"
    address = [
        name,
        f"{rng.randint(1, 240)} {rng.choice(_STREETS)}",
        f"{rng.randint(10000, 99999)} {rng.choice(_CITIES)}",
    ]
    lines = _lines(rng)
    subtotal = sum(quantity * price for _, _, quantity, price in lines)
    shipping = rng.choice((0, 495, 795, 1250))
    tax = subtotal * rng.choice((7, 8, 19, 20)) // 100
    total = subtotal + shipping + tax
    delivery = f"{rng.choice(('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'))}, {rng.randint(1, 28)} December"
    tracking = f"1Z{rng.randint(10**15, 10**16 - 1)}"
    rows = "\n".join(
        f'<tr><td {_CELL}>{item}<br><span style="color:#7b8794;font-size:12px">SKU {sku}</span></td>'
        f'<td {_CELL} align="center">{quantity}</td><td {_CELL} align="right">{_money(price)}</td>'
        f'<td {_CELL} align="right">{_money(quantity * price)}</td></tr>'
        for item, sku, quantity, price in lines
    )
    totals = "\n".join(
        f'<tr><td colspan="3" {_CELL} align="right">{label}</td><td {_CELL} align="right">{_money(value)}</td></tr>'
        for label, value in (("Subtotal", subtotal), ("Shipping", shipping), ("Tax", tax), ("Total", total))
    )
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your receipt for order {order}</title>
<style>@media only screen and (max-width:600px){{.container{{width:100%!important}}.stack{{display:block!important;width:100%!important}}}}
a{{color:#3b5bdb}} .muted{{color:#7b8794}}</style></head>
<body style="margin:0;padding:0;background:#f5f7fa">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f5f7fa"><tr><td align="center">
<table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" style="background:#ffffff;margin:24px 0;border-radius:6px">
<tr><td style="padding:24px 32px;font-family:Helvetica,Arial,sans-serif"><img src="https://cdn.example.com/brand/logo@2x.png" width="120" alt="Example Shop"></td></tr>
<tr><td style="padding:0 32px;font-family:Helvetica,Arial,sans-serif;font-size:22px;color:#1f2933">Thanks for your order, {name.split()[0]}!</td></tr>
<tr><td style="padding:12px 32px;font-family:Helvetica,Arial,sans-serif;font-size:14px;color:#52606d">
We have received order <strong>{order}</strong> and are getting it ready. It should arrive on {delivery}.
You can <a href="https://shop.example.com/orders/{order}?utm_source=email&amp;utm_medium=receipt">follow your order</a> at any time.</td></tr>
<tr><td style="padding:12px 32px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0">
<tr><th {_CELL} align="left">Item</th><th {_CELL}>Qty</th><th {_CELL} align="right">Price</th><th {_CELL} align="right">Amount</th></tr>
{rows}
{totals}
</table></td></tr>
<tr><td style="padding:12px 32px"><table role="presentation" width="100%"><tr>
<td class="stack" width="50%" valign="top" style="font-family:Helvetica,Arial,sans-serif;font-size:13px;color:#52606d">
<strong>Shipping to</strong><br>{"<br>".join(address)}</td>
<td class="stack" width="50%" valign="top" style="font-family:Helvetica,Arial,sans-serif;font-size:13px;color:#52606d">
<strong>Paid with</strong><br>{rng.choice(("Visa", "Mastercard", "Amex"))} ending in {rng.randint(1000, 9999)}<br>
Tracking: <a href="https://track.example.com/{tracking}">{tracking}</a></td></tr></table></td></tr>
<tr><td style="padding:24px 32px;font-family:Helvetica,Arial,sans-serif;font-size:12px" class="muted">
Questions? Reply to this email or visit <a href="https://help.example.com/?order={order}">our help centre</a>.
Returns are free within 30 days. Example Shop Ltd, {rng.randint(1, 99)} Market Square, {rng.choice(_CITIES)}.
<br><a href="https://shop.example.com/account/preferences?u={rng.getrandbits(64):016x}">Email preferences</a></td></tr>
</table></td></tr></table></body></html>"""
    text_rows = "\n".join(
        f"  {item} (SKU {sku})\n    {quantity} x {_money(price)} = {_money(quantity * price)}"
        for item, sku, quantity, price in lines
    )
    text = f"""Thanks for your order, {name.split()[0]}!

We have received order {order} and are getting it ready. It should arrive on {delivery}.
Follow your order: https://shop.example.com/orders/{order}

{text_rows}

Subtotal {_money(subtotal)}
Shipping {_money(shipping)}
Tax      {_money(tax)}
Total    {_money(total)}

Shipping to:
{chr(10).join(address)}

Tracking: https://track.example.com/{tracking}

Questions? Reply to this email. Returns are free within 30 days.
"""
    return html, text
