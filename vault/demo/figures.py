"""Figures for the demo posts: two PNGs drawn with Pillow and one HTML figure.

The PNGs are drawn when the demo is loaded (no downloads, no binary files in
the repository). Their labels are ASCII because Pillow's built-in font has no
CJK glyphs; the Chinese goes into the caption and alt text.
"""

import math

from PIL import Image, ImageDraw, ImageFont

from vault.demo.base import DemoImage

INK = (31, 41, 55)
GRID = (229, 231, 235)
MUTED = (107, 114, 128)
BLUE = (59, 130, 246)
RED = (239, 68, 68)
ORANGE = (234, 88, 12)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow built without FreeType
        return ImageFont.load_default()


def _dashed(draw, start, end, *, fill, width=2, dash=10) -> None:
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    steps = max(1, int(length // dash))
    for i in range(0, steps, 2):
        a, b = i / steps, min(1.0, (i + 1) / steps)
        draw.line(
            [
                (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b),
            ],
            fill=fill,
            width=width,
        )


def draw_roofline() -> Image.Image:
    """The H100 SXM5 roofline for dense BF16, on log-log axes."""
    peak, bandwidth = 989.0, 3.35  # TFLOP/s, TB/s -> TFLOP/s per FLOP/byte
    ridge = peak / bandwidth
    width, height = 1200, 720
    left, right, top, bottom = 120, 50, 80, 100
    x_min, x_max = -2, 12  # log2 of FLOP/byte
    y_min, y_max = -0.3, 3.3  # log10 of TFLOP/s

    def px(intensity: float, tflops: float) -> tuple[float, float]:
        u = (math.log2(intensity) - x_min) / (x_max - x_min)
        v = (math.log10(tflops) - y_min) / (y_max - y_min)
        return (
            left + u * (width - left - right),
            height - bottom - v * (height - top - bottom),
        )

    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    small, normal, big = _font(18), _font(22), _font(26)

    for e in range(x_min, x_max + 1, 2):
        x, _ = px(2.0**e, 1)
        draw.line([(x, top), (x, height - bottom)], fill=GRID, width=1)
        label = f"1/{2**-e}" if e < 0 else str(2**e)
        draw.text((x, height - bottom + 12), label, fill=MUTED, font=small, anchor="mt")
    for e in range(0, 4):
        _, y = px(1, 10.0**e)
        draw.line([(left, y), (width - right, y)], fill=GRID, width=1)
        draw.text((left - 12, y), str(10**e), fill=MUTED, font=small, anchor="rm")
    draw.rectangle([left, top, width - right, height - bottom], outline=INK, width=2)

    roof = [
        px(2.0**x_min, bandwidth * 2.0**x_min),
        px(ridge, peak),
        px(2.0**x_max, peak),
    ]
    draw.line(roof, fill=BLUE, width=5, joint="curve")
    _dashed(draw, px(ridge, peak), px(ridge, 10**y_min), fill=MUTED)
    rx, ry = px(ridge, peak)
    draw.text(
        (rx + 12, ry + 90), "ridge I* = 295 FLOP/B", fill=INK, font=normal, anchor="lt"
    )

    points = (
        (1.0, "GEMV, fp16 weights: I = 1", "lt", (14, 10)),
        (4096 / 3, "GEMM 4096^3: I = 1365", "mb", (0, -14)),
    )
    for intensity, name, anchor, (dx, dy) in points:
        x, y = px(intensity, min(peak, bandwidth * intensity))
        draw.ellipse([x - 8, y - 8, x + 8, y + 8], fill=ORANGE, outline=INK)
        draw.text((x + dx, y + dy), name, fill=INK, font=small, anchor=anchor)

    draw.text(
        (width / 2, 40),
        "H100 SXM5 roofline: BF16 dense 989 TFLOP/s, HBM3 3.35 TB/s",
        fill=INK,
        font=big,
        anchor="mm",
    )
    draw.text(
        (left + (width - left - right) / 2, height - 35),
        "arithmetic intensity (FLOP / byte)",
        fill=INK,
        font=normal,
        anchor="mm",
    )
    label = Image.new("RGB", (320, 36), "white")
    ImageDraw.Draw(label).text(
        (160, 18), "attainable TFLOP/s", fill=INK, font=normal, anchor="mm"
    )
    img.paste(
        label.rotate(90, expand=True), (20, top + (height - top - bottom) // 2 - 160)
    )
    return img


def draw_bank_swizzle() -> Image.Image:
    """Which banks eight ldmatrix row addresses hit, before and after the swizzle."""
    cell, rows, banks = 32, 8, 32
    left, top, gap = 110, 80, 110
    width = left + banks * cell + 40
    panel = rows * cell
    height = top + 2 * panel + gap + 36
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    tiny, small, normal = _font(14), _font(17), _font(21)

    panels = (
        (
            "Row-major tile, 64 halfs (128 B) per row: chunk 0 of rows 0-7 -> banks 0-3, 8-way conflict",
            lambda r: 0,
            RED,
        ),
        (
            "Swizzle<3,3,3>: chunk c of row r is stored at chunk c ^ r -> 32 distinct banks, no conflict",
            lambda r: r,
            BLUE,
        ),
    )
    for index, (title, chunk_of_row, colour) in enumerate(panels):
        y0 = top + index * (panel + gap)
        draw.text((left, y0 - 52), title, fill=INK, font=normal)
        for b in range(0, banks, 4):
            x = left + b * cell
            draw.text(
                (x + 2 * cell, y0 - 14),
                f"chunk {b // 4}",
                fill=MUTED,
                font=tiny,
                anchor="mb",
            )
        for r in range(rows):
            y = y0 + r * cell
            draw.text(
                (left - 12, y + cell / 2), f"row {r}", fill=INK, font=small, anchor="rm"
            )
            hit = chunk_of_row(r) * 4
            for b in range(banks):
                x = left + b * cell
                fill = colour if hit <= b < hit + 4 else (249, 250, 251)
                draw.rectangle([x, y, x + cell, y + cell], fill=fill, outline=GRID)
            x = left + (hit + 2) * cell
            draw.text((x, y + cell / 2), f"r{r}", fill="white", font=small, anchor="mm")
        for b in range(0, banks + 1, 4):
            x = left + b * cell
            draw.line([(x, y0), (x, y0 + panel)], fill=INK, width=2)
        draw.rectangle(
            [left, y0, left + banks * cell, y0 + panel], outline=INK, width=2
        )
        for b in range(0, banks, 4):
            x = left + b * cell + cell / 2
            draw.text((x, y0 + panel + 6), str(b), fill=MUTED, font=tiny, anchor="mt")
        draw.text(
            (left - 12, y0 + panel + 6), "bank", fill=MUTED, font=tiny, anchor="rt"
        )
    return img


ROOFLINE = DemoImage(
    title="H100 SXM5 roofline（BF16 dense）",
    filename="h100-roofline.png",
    draw=draw_roofline,
)

BANK_SWIZZLE = DemoImage(
    title="ldmatrix 的 8 行地址：bank conflict 与 XOR swizzle",
    filename="ldmatrix-bank-swizzle.png",
    draw=draw_bank_swizzle,
)

# A self-contained page: it runs in a sandboxed iframe, so it inlines its own
# style and script and follows the reader's colour scheme.
BANK_CONFLICT_HTML = """
<!doctype html>
<html lang="zh">
<head>
<meta charset="utf-8">
<style>
  body { margin: 0; font: 14px/1.5 system-ui, sans-serif; color: #1f2937; background: #fff; }
  @media (prefers-color-scheme: dark) { body { color: #e5e7eb; background: #18181b; } }
  .controls { display: flex; gap: 16px; align-items: center; padding: 8px 12px; }
  input { width: 220px; }
  svg { display: block; width: 100%; height: auto; }
</style>
</head>
<body>
<div class="controls">
  <label>stride s = <output id="value">1</output>
    <input id="stride" type="range" min="1" max="32" value="1"></label>
  <strong id="verdict"></strong>
</div>
<svg id="banks" viewBox="0 0 660 130" role="img"
     aria-label="32 个线程访问 smem[t * s] 时每个 bank 的访问次数"></svg>
<script>
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("banks");
  const slider = document.getElementById("stride");

  function node(name, attrs, text) {
    const el = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function draw(stride) {
    const hits = new Array(32).fill(0);
    for (let t = 0; t < 32; t++) hits[(t * stride) % 32] += 1;  // 4-byte words
    const ways = Math.max(...hits);
    svg.replaceChildren();
    for (let b = 0; b < 32; b++) {
      const x = 10 + b * 20;
      const fill = hits[b] === 0 ? "#e5e7eb" : hits[b] === 1 ? "#3b82f6" : "#ef4444";
      svg.append(node("rect", { x, y: 20, width: 18, height: 60, rx: 3, fill }));
      svg.append(node("text", { x: x + 9, y: 55, "text-anchor": "middle",
                                "font-size": 11, fill: "#fff" }, hits[b] || ""));
      if (b % 4 === 0) svg.append(node("text", { x: x + 9, y: 100, "text-anchor": "middle",
                                                 "font-size": 11, fill: "currentColor" }, b));
    }
    svg.append(node("text", { x: 10, y: 122, "font-size": 11, fill: "currentColor" },
                    "bank（格子里的数字：落在该 bank 的线程数）"));
    document.getElementById("value").textContent = stride;
    document.getElementById("verdict").textContent = ways === 1
      ? "无冲突：一次完成"
      : `${ways}-way bank conflict：串行 ${ways} 次`;
  }

  slider.addEventListener("input", () => draw(Number(slider.value)));
  draw(1);
</script>
</body>
</html>
"""
