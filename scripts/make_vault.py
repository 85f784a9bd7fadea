"""Write a synthetic Obsidian/MkDocs vault the size of a real blog, for `make bench-import`.

About 200 posts in nested folders (sections holding series, series holding
posts, a few posts at the top), prose in Chinese and English, math in about
40 posts, code in about 100, about 700 PNG figures drawn by Pillow at the size
of real diagrams, plots and screenshots (tens to hundreds of kilobytes),
callouts, footnotes, tables, and links between posts written the ways authors
write them (`[[wiki links]]`, relative `.md` paths, `![[figure.png]]`
embeds). Everything comes from one seed, so a seed always gives the same vault.

    .venv/bin/python scripts/make_vault.py OUTDIR [--posts 200] [--images 700]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.bench import content  # noqa: E402

# (folder, title of its index.md or None, share of the posts).
FOLDERS = (
    ("", None, 6),
    ("cuda", "CUDA", 16),
    ("cuda/cute", "CuTe 入门", 8),
    ("cuda/triton", "Triton kernel 笔记", 6),
    ("cuda/gemm", None, 7),
    ("llm_inference", "LLM 推理", 14),
    ("llm_inference/kv-cache", "KV Cache 管理", 6),
    ("llm_inference/量化", "大模型量化", 8),
    ("notes", "读书笔记", 4),
    ("notes/CSAPP", "CSAPP", 6),
    ("notes/CMU15445", "CMU 15-445", 18),
    ("notes/OSTEP", None, 8),
    ("notes/DDIA", "Designing Data-Intensive Applications", 7),
    ("systems", "系统", 10),
    ("systems/Linux 内存管理", None, 6),
    ("systems/raft", "Raft 实现", 5),
    ("tools", None, 5),
)
IMAGE_FOLDERS = ("images", "assets", "img")

# Prose without math, for the posts that have none.
ZH_PLAIN = (
    "这一篇记录我在调试时踩过的坑。最开始以为瓶颈在计算，profile 之后才发现大部分时间都花在等待内存上。",
    "读源码的顺序很重要：先看数据结构，再看它们之间怎么流动，最后才看边角的错误处理。",
    "下面的实验都在一台单卡机器上完成，驱动版本和编译选项写在文末，方便以后对照。",
    "这个设计的取舍在于简单：只有一个锁，代价是高并发下的吞吐，但换来了好推理的正确性。",
    "如果只记住一件事：先测量，再优化。直觉在这里经常是错的。",
    "课程的这一讲讨论缓冲池管理。磁盘上的页被读进内存里的帧，替换策略决定谁先被淘汰。",
    "日志先行（WAL）保证了崩溃之后可以恢复：每次修改先写日志，再改数据页。",
    "我把这一节的要点整理成下面几条，代码放在仓库的 `examples/` 目录里。",
)
EN_PLAIN = (
    "This post collects what I learned while chasing a slowdown that turned out to be a cache miss in the hot loop.",
    "The first version was simple and slow; the second one was fast and wrong. The third is below.",
    "Reading the scheduler code top-down is hard; reading it from the data structures outward is much easier.",
    "The numbers below come from a single machine, so treat them as relative rather than absolute.",
    "A lock-free queue is not automatically faster: under low contention a plain mutex wins.",
    "The lecture on query execution compares the iterator model with vectorized and compiled execution.",
    "Most of the time goes into the allocator, which is why the arena version helps so much.",
)
OTHER_CODE = (
    ("bash", "nsys profile --stats=true -o report ./gemm 4096 4096 4096\nncu --set full -k regex:sgemm ./gemm 4096 4096 4096"),
    ("json", '{\n  "model": "llama-7b",\n  "dtype": "float16",\n  "max_batch_size": 64,\n  "kv_cache_blocks": 2048\n}'),
    ("sql", "SELECT s.name, COUNT(*) AS n\nFROM enrolled e JOIN student s ON e.sid = s.sid\nWHERE e.grade = 'A'\nGROUP BY s.name\nORDER BY n DESC;"),
    ("go", "func (rf *Raft) ticker() {\n\tfor !rf.killed() {\n\t\ttime.Sleep(time.Duration(50+rand.Intn(300)) * time.Millisecond)\n\t\trf.mu.Lock()\n\t\tif rf.state != Leader && time.Since(rf.heartbeat) > rf.timeout {\n\t\t\trf.startElection()\n\t\t}\n\t\trf.mu.Unlock()\n\t}\n}"),
    ("rust", "async fn fetch_all(urls: Vec<String>) -> Vec<Result<String, reqwest::Error>> {\n    let futures = urls.into_iter().map(|u| async move { reqwest::get(&u).await?.text().await });\n    futures::future::join_all(futures).await\n}"),
    ("c", "int main(void) {\n    pid_t pid = fork();\n    if (pid == 0) {\n        execlp(\"ls\", \"ls\", \"-l\", NULL);\n    }\n    waitpid(pid, NULL, 0);\n    return 0;\n}"),
)  # fmt: skip
ITEMS = (
    "先用 `nsys` 看时间线", "再用 `ncu` 看单个 kernel", "**合并访存**比提高占用率更重要",
    "read the scheduler first", "measure, then change one thing", "`cp.async` + 双缓冲",
    "*vectorized* loads (`float4`)", "检查 bank conflict", "keep the hot loop branch-free",
)  # fmt: skip
CALLOUTS = ("NOTE", "TIP", "WARNING", "INFO", "IMPORTANT", "quote")
ALT_WORDS = (
    "示意图",
    "架构图",
    "profile 截图",
    "roofline",
    "timeline",
    "结果对比",
    "diagram",
)
_MATH = re.compile(r"\$[^$]+\$")


@dataclass
class Post:
    """One post to write: where it goes and what it holds."""

    folder: str
    stem: str
    title: str
    chinese: bool
    math: bool
    code: bool
    images: list[str] = field(default_factory=list)  # paths relative to the folder

    @property
    def rel(self) -> str:
        return f"{self.folder}/{self.stem}.md" if self.folder else f"{self.stem}.md"


def paragraph(rng: random.Random, post: Post) -> str:
    if post.math:
        return content.prose(rng, post.chinese)
    pool = ZH_PLAIN if post.chinese else EN_PLAIN
    text = " ".join(rng.sample(pool, rng.randint(1, 3)))
    if rng.random() < 0.3:
        # Math-free prose from the shared pools: formulas become plain words.
        more = content.fill(
            rng.choice(
                content.ZH_PARAGRAPHS if post.chinese else content.EN_PARAGRAPHS
            ),
            rng,
        )
        text += " " + _MATH.sub("N", more)
    return text


def plan(rng: random.Random, posts: int, images: int) -> list[Post]:
    """Decide every post's folder, name, language and what it holds."""
    weights = [share for _, _, share in FOLDERS]
    numbered: dict[str, int] = {}
    planned = []
    for number in range(posts):
        folder = rng.choices([f for f, _, _ in FOLDERS], weights)[0]
        n = numbered[folder] = numbered.get(folder, 0) + 1
        topic = rng.choice(content.TOPICS)
        chinese = rng.random() < 0.65
        title = rng.choice(content.TITLE_FORMS).format(topic=topic, n=n)
        # Names as authors give them: numbered in series, spaces and CJK kept.
        if "/" in folder and rng.random() < 0.7:
            stem = f"{n}-{topic}"
        else:
            stem = f"{topic} {number}" if rng.random() < 0.5 else f"{topic}-{number}"
        stem = stem.replace("/", "-").replace(":", "")
        planned.append(Post(folder, stem, title, chinese, math=False, code=False))
    for post in rng.sample(planned, posts * 40 // 200):
        post.math = True
    for post in rng.sample(planned, posts * 100 // 200):
        post.code = True
    # Figures: most posts a few, some none, a few a great many.
    weights = [0 if rng.random() < 0.2 else rng.paretovariate(1.5) for _ in planned]
    for index in range(images):
        post = rng.choices(planned, weights)[0]
        post.images.append(
            f"{rng.choice(IMAGE_FOLDERS)}/{post.stem[:12].strip()}-{index:04d}.png"
        )
    return planned


def draw_image(path: Path, rng: random.Random) -> None:
    """Draw a PNG the size and kind of a real figure: diagram, plot or screenshot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = rng.choices(("diagram", "plot", "screenshot"), (5, 3, 2))[0]
    width = rng.choice((640, 800, 960, 1200, 1600))
    height = int(width * rng.uniform(0.45, 0.75))
    picture = Image.new("RGB", (width, height), "white")
    pen = ImageDraw.Draw(picture)
    font = ImageFont.load_default(size=max(12, width // 50))
    colours = [
        tuple(rng.randrange(40, 230) for _ in range(3))
        for _ in range(rng.randint(3, 6))
    ]
    if kind == "screenshot":
        # A terminal or profiler window: noisy text-like texture in bands.
        noise = Image.effect_noise((width, height // 2), rng.uniform(20, 60))
        picture.paste(noise.convert("RGB"), (0, height // 4))
    for _ in range(rng.randint(6, 18)):
        x, y = rng.randrange(width - 60), rng.randrange(height - 40)
        w, h = rng.randint(40, width // 3), rng.randint(20, height // 4)
        if kind == "plot":
            points = [(x + i * w // 20, y + rng.randint(0, h)) for i in range(21)]
            pen.line(points, fill=rng.choice(colours), width=2)
        else:
            pen.rectangle(
                (x, y, x + w, y + h), outline="black", fill=rng.choice(colours)
            )
        pen.text(
            (x + 4, y + 4),
            rng.choice(ALT_WORDS[4:] + ("SM", "L2", "HBM")),
            fill="black",
            font=font,
        )
    picture.save(path, optimize=False)


def body(rng: random.Random, post: Post, others: list[Post]) -> str:
    """Return the Markdown body of ``post``."""
    out: list[str] = []
    headings = content.HEADINGS_ZH if post.chinese else content.HEADINGS_EN
    figures = list(post.images)
    notes = 0
    sections = rng.randint(3, 7)
    for part in range(1, sections + 1):
        out += [f"## {rng.choice(headings)} {part}", ""]
        for _ in range(rng.randint(1, 4)):
            text = paragraph(rng, post)
            if rng.random() < 0.15:
                notes += 1
                text += f"[^{notes}]"
            if others and rng.random() < 0.12:
                other = rng.choice(others)
                if rng.random() < 0.5:
                    text += (
                        f" 参见 [[{other.stem}]]。"
                        if post.chinese
                        else f" See [[{other.stem}|this post]]."
                    )
                else:
                    text += f" ([{other.title}]({relative(post, other)}))"
            out += [text, ""]
        if post.math and rng.random() < 0.8:
            out += ["$$", content.fill(rng.choice(content.DISPLAY_MATH), rng), "$$", ""]
        if post.code and rng.random() < 0.7:
            if rng.random() < 0.6:
                language, filename, code = rng.choice(content.CODE_SNIPPETS)
                info = (
                    f'{language} title="{filename}"' if rng.random() < 0.5 else language
                )
                out += [f"```{info}", content.source(code), "```", ""]
            else:
                language, code = rng.choice(OTHER_CODE)
                out += [f"```{language}", code, "```", ""]
        share = max(1, len(figures) // max(1, sections - part + 1))
        for figure in figures[:share]:
            alt = rng.choice(ALT_WORDS)
            name = figure.rsplit("/", 1)[1]
            # As Obsidian writes a path with spaces in a Markdown link.
            href = figure.replace(" ", "%20")
            form = rng.random()
            if form < 0.45:
                out += [f"![{alt}]({href})", ""]
            elif form < 0.75:
                out += [f"![[{name}]]", ""]
            else:
                out += [f'![{alt}](./{href} "{alt} {part}")', ""]
        figures = figures[share:]
        if rng.random() < 0.2:
            kind = rng.choice(CALLOUTS)
            out += [
                f"> [!{kind}] {rng.choice(headings)}",
                f"> {paragraph(rng, post)}",
                "",
            ]
        if rng.random() < 0.15:
            out += [
                "| 配置 | 时间 (ms) | 吞吐 |"
                if post.chinese
                else "| config | time (ms) | throughput |",
                "| --- | ---: | ---: |",
                *(
                    f"| {name} | {rng.uniform(0.1, 50):.2f} | {rng.randint(1, 900)} |"
                    for name in ("baseline", "tiled", "async", "fused")
                ),
                "",
            ]
        if rng.random() < 0.2:
            out += [f"- {item}" for item in rng.sample(ITEMS, rng.randint(2, 5))]
            out.append("")
    for figure in figures:
        out += [f"![]({figure.replace(' ', '%20')})", ""]
    # What real vaults have a little of: figures on the web, a figure that was
    # never copied in, a link to a note that was renamed.
    if rng.random() < 0.1:
        out += [
            f"![远程图片](https://example.com/figures/{post.stem[:8]}-{rng.randrange(99)}.png)",
            "",
        ]
    if rng.random() < 0.03:
        out += ["![](images/deleted-long-ago.png)", ""]
    if rng.random() < 0.03:
        out += ["See [[a note that was renamed]].", ""]
    for number in range(1, notes + 1):
        out.append(f"[^{number}]: {rng.choice(EN_PLAIN)}")
    return "\n".join(out).rstrip() + "\n"


def relative(post: Post, other: Post) -> str:
    """Return the path of ``other``'s file from ``post``'s folder, as authors write it."""
    up = "../" * (post.folder.count("/") + 1 if post.folder else 0)
    return (up + other.rel).replace(" ", "%20")


def front_matter(rng: random.Random, post: Post) -> list[str]:
    lines = ["---", f'title: "{post.title}"']
    if rng.random() < 0.85:
        date, updated = content.post_dates(rng)
        lines.append(f"date: {date.isoformat()}")
        if updated != date:
            lines.append(f"updated: {updated.isoformat()}")
    tags = rng.sample(content.TAG_NAMES, rng.randint(0, 4))
    if tags:
        lines.append("tags:")
        lines += [f"  - {tag}" for tag in tags]
    if rng.random() < 0.4:
        topic = rng.choice(content.TOPICS)
        lines.append(f'summary: "{rng.choice(content.SUMMARIES).format(topic=topic)}"')
    return [*lines, "---", ""]


def write_vault(out: Path, *, posts: int, images: int, seed: int) -> dict[str, int]:
    """Write the vault into ``out`` (replaced); return what it holds."""
    rng = random.Random(seed)  # noqa: S311 (content, not secrets)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    planned = plan(rng, posts, images)
    for folder, title, _ in FOLDERS:
        (out / folder).mkdir(parents=True, exist_ok=True)
        if folder and title:
            intro = paragraph(rng, Post(folder, "index", title, True, False, False))
            (out / folder / "index.md").write_text(
                f'---\ntitle: "{title}"\n---\n\n{intro}\n', "utf-8"
            )
    # An Obsidian vault: its settings folder says how line breaks read.
    (out / ".obsidian").mkdir()
    (out / ".obsidian" / "app.json").write_text(
        '{"strictLineBreaks": false, "attachmentFolderPath": "./assets"}\n', "utf-8"
    )
    drawn = 0
    for post in planned:
        others = [p for p in rng.sample(planned, 8) if p is not post]
        text = "\n".join(front_matter(rng, post)) + "\n" + body(rng, post, others)
        (out / post.rel).write_text(text, "utf-8")
        for figure in post.images:
            draw_image(out / post.folder / figure, rng)
            drawn += 1
    total = sum(f.stat().st_size for f in out.rglob("*.png"))
    return {
        "posts": len(planned),
        "math": sum(p.math for p in planned),
        "code": sum(p.code for p in planned),
        "images": drawn,
        "image_mb": round(total / 1e6),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write (replaced)")
    parser.add_argument("--posts", type=int, default=200)
    parser.add_argument("--images", type=int, default=700)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    stats = write_vault(args.out, posts=args.posts, images=args.images, seed=args.seed)
    print(  # noqa: T201
        f"{args.out}: {stats['posts']} posts ({stats['math']} with math, "
        f"{stats['code']} with code), {stats['images']} images ({stats['image_mb']} MB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
