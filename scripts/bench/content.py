"""Synthetic content for `make bench`: bilingual posts with math and code.

Everything comes from a seeded `random.Random`, so one size always gives the same
site. Prose is Chinese and English about GPU kernels, quantization and systems,
with inline `$…$` math; bodies hold display math and CUDA, C++ and Python code.
Bodies are StreamField values in Wagtail's raw form (the JSON the admin
stores); the import test gets the same material as Markdown files
(docs/markdown-format.md).

No Django here: the generator (scripts/bench/site.py) and the Markdown writer
both draw from these pools.
"""

from __future__ import annotations

import datetime
import random
import textwrap
import uuid
from dataclasses import dataclass

# The query the search page is measured with; many posts contain it.
SEARCH_QUERY = "量化"

TAG_NAMES = (
    "cuda", "triton", "cutlass", "cute", "ptx", "tensor-core", "gemm", "attention",
    "flash-attention", "kv-cache", "quantization", "int8", "fp8", "awq", "gptq",
    "llm", "inference", "serving", "vllm", "speculative-decoding", "moe",
    "scheduling", "memory", "cache", "simd", "numa", "linux", "kernel", "database",
    "btree", "lsm", "raft", "compiler", "llvm", "mlir", "python", "cpp", "rust",
    "profiling", "roofline",
    "量化", "算子", "调度器", "显存", "并行", "编译器", "操作系统", "数据库", "读书笔记", "性能",
)  # fmt: skip

# Top-level sections (newest first) and the series (reading order) in them;
# a series whose section is None sits at the top level.
SECTIONS = (
    ("cuda", "CUDA"),
    ("llm-inference", "LLM 推理"),
    ("notes", "读书笔记"),
    ("systems", "系统"),
)
SERIES = (
    ("cute", "CuTe 入门", "cuda"),
    ("cutlass", "CUTLASS 源码阅读", "cuda"),
    ("triton", "Triton kernel 笔记", "cuda"),
    ("ptx", "PTX 与 SASS", "cuda"),
    ("tensor-core", "Tensor Core 编程", "cuda"),
    ("gemm", "从零写 GEMM", "cuda"),
    ("reduction", "Reduction 与 Scan", "cuda"),
    ("kv-cache", "KV Cache 管理", "llm-inference"),
    ("speculative", "Speculative Decoding", "llm-inference"),
    ("quant", "大模型量化", "llm-inference"),
    ("serving", "推理服务调度", "llm-inference"),
    ("moe", "MoE 推理", "llm-inference"),
    ("attention", "Attention 变体", "llm-inference"),
    ("csapp", "CSAPP", "notes"),
    ("cmu15445", "CMU 15-445", "notes"),
    ("ostep", "OSTEP", "notes"),
    ("ddia", "DDIA", "notes"),
    ("sicp", "SICP", "notes"),
    ("pmpp", "PMPP", "notes"),
    ("mit6824", "MIT 6.824", "notes"),
    ("linux-mm", "Linux 内存管理", "systems"),
    ("io-uring", "io_uring", "systems"),
    ("allocator", "内存分配器", "systems"),
    ("lsm", "LSM-Tree 存储引擎", "systems"),
    ("raft", "Raft 实现", "systems"),
    ("mlir", "MLIR 入门", None),
    ("llvm", "LLVM Pass", None),
    ("rust-async", "Rust async", None),
    ("numerics", "数值计算", None),
    ("profiling", "性能分析工具", None),
)

# Prose. @N@, @M@, @K@, @B@ and @T@ are replaced by numbers, so paragraphs and
# formulas vary from post to post (and the render cache sees distinct formulas).
ZH_PARAGRAPHS = (
    "对称量化把权重映射到 $[-127, 127]$：scale 取 $s = \\max_i |w_i| / 127$，量化值 $q_i = \\operatorname{round}(w_i / s)$。对 @N@ 维的 hidden size，INT32 累加器足够容纳 $2^{@B@}$ 个乘积。",
    "一个 warp 有 32 个线程，warp 调度器每个周期挑一个就绪的 warp 发射指令。占用率 $\\frac{\\text{active warps}}{\\text{max warps}}$ 不是越高越好：每个线程用 @K@ 个寄存器时，一个 SM 最多驻留 $\\lfloor 65536 / (@K@ \\cdot 32) \\rfloor$ 个 warp。",
    "shared memory 分成 32 个 bank，每个 bank 宽 4 字节。当同一个 warp 的线程访问同一 bank 的不同地址时会发生 bank conflict，访问被串行化为 $n$ 次，其中 $n$ 是冲突的路数；swizzle 把地址 $a$ 映射为 $a \\oplus (a \\gg @B@)$ 来打散冲突。",
    "FlashAttention 的核心是分块计算 softmax：对每个块维护行最大值 $m_i$ 和归一化因子 $\\ell_i$，新块到来时用 $e^{m_i - m_i'}$ 重新缩放旧的累加结果，于是 $S = QK^T$ 不必整块写回显存，显存访问从 $O(N^2)$ 降到 $O(N^2 d^2 / M)$。",
    "KV cache 的大小是 $2 \\cdot L \\cdot H \\cdot d \\cdot T \\cdot b$ 字节：@N@ 层、每层 @M@ 个头、序列长度 @T@ 时，单个请求就要占用几个 GB 的显存。PagedAttention 把它切成固定大小的块，像操作系统的页表一样按需分配。",
    "调度器每一步要决定哪些请求进入 batch。continuous batching 在每个 decode step 之后就可以加入新请求，吞吐量随 batch 大小 $B$ 近似线性增长，直到受限于显存带宽 $\\beta$：此时每步时间约为 $\\frac{\\text{weights}}{\\beta}$。",
    "虚拟内存把地址空间分成 4 KB 的页，页表项记录物理页号和权限位。TLB 命中时地址翻译只要一个周期；未命中时要走 @K@ 级页表，代价是 $@K@ \\times t_{mem}$。大页把 TLB 覆盖范围扩大到 $2\\,\\text{MB} \\times n$。",
    "B+ 树的每个节点放满一个页：扇出 $f \\approx @N@$ 时，三层就能索引 $f^3$ 条记录。缓冲池用 LRU-K 替换策略，避免一次顺序扫描把热页全部挤出去；写入先记 WAL，崩溃后按 LSN 重放。",
    "Tensor Core 的一条 `mma.sync` 指令计算 $D = A B + C$，其中 $A$ 是 $16 \\times 16$、$B$ 是 $16 \\times 8$ 的 FP16 矩阵。用 `ldmatrix` 从 shared memory 装载 fragment，再配合 `cp.async` 做双缓冲，主循环才能把 Tensor Core 喂饱。",
    "Raft 把一致性拆成领导者选举、日志复制和安全性三部分。选举超时在 $[@N@, 2 \\times @N@]$ 毫秒之间随机选取，避免反复平票；日志条目在多数派 $\\lfloor n/2 \\rfloor + 1$ 个节点上持久化后才算提交。",
    "GPTQ 逐列量化权重，并用 Hessian 的逆 $H^{-1} = (2XX^T + \\lambda I)^{-1}$ 把每一列的量化误差补偿到尚未量化的列上。AWQ 则观察到只有约 $1\\%$ 的显著通道决定精度，先按激活幅度放大这些通道再量化。",
    "LSM-Tree 把随机写变成顺序写：数据先进 memtable，满了就刷成不可变的 SSTable。读放大与写放大此消彼长，leveled compaction 的写放大约为 $O(T \\cdot L)$，其中 $T = @K@$ 是层间放大系数。",
)
EN_PARAGRAPHS = (
    "Arithmetic intensity $I = \\frac{\\text{FLOPs}}{\\text{bytes}}$ decides which side of the roofline a kernel falls on. With a peak of $\\pi = @N@$ GFLOP/s and a bandwidth of $\\beta$, the ridge point sits at $I^* = \\pi / \\beta$; below it, shaving FLOPs buys nothing.",
    "A tiled GEMM loads a $@M@ \\times @K@$ tile of $A$ and a $@K@ \\times @M@$ tile of $B$ into shared memory, so each element fetched from global memory is reused $@M@$ times. The data reuse is what turns a memory-bound loop into a compute-bound one.",
    "Speculative decoding lets a small draft model propose $k$ tokens that the target model verifies in one forward pass. If each token is accepted with probability $\\alpha$, the expected number of tokens per step is $\\frac{1 - \\alpha^{k+1}}{1 - \\alpha}$, which is why a good draft matters more than a long one.",
    "The scheduler keeps a run queue per CPU and picks the task with the smallest virtual runtime $v_i = \\sum t_i \\cdot \\frac{w_0}{w_i}$. Concurrency bugs hide in the gaps: a context switch between the check and the update of a shared counter is enough to lose @N@ increments.",
    "Quantization to FP8 keeps a per-tensor scale $s$ and stores $x_q = \\operatorname{clip}(x / s, -448, 448)$ in the E4M3 format. Accumulation still happens in FP32, so the error is dominated by the rounding of the inputs, roughly $2^{-4}$ relative.",
    "A mixture-of-experts layer routes each token to the top-$k$ of $E = @M@$ experts with gate weights $g_i = \\operatorname{softmax}(x W_g)_i$. Load balancing adds an auxiliary loss $\\mathcal{L}_{aux} = E \\sum_i f_i P_i$ so that no expert starves while another overflows.",
    "Profiling first: `nsys` shows the timeline, `ncu` the per-kernel counters. A kernel that reaches @B@% of DRAM bandwidth but only 10% of SM throughput is memory-bound, and the fix is fusion or better coalescing, not more occupancy.",
    "The allocator keeps size classes of $2^k$ bytes and a thread-local cache per class, so the fast path of `malloc` is a pop from a free list with no lock at all. Fragmentation is bounded by the ratio between classes, at most $2\\times$ here.",
)
DISPLAY_MATH = (
    "\\begin{aligned} m_i' &= \\max(m_i, \\tilde m_i) \\\\ \\ell_i' &= e^{m_i - m_i'} \\ell_i + e^{\\tilde m_i - m_i'} \\tilde \\ell_i \\end{aligned}",
    "\\operatorname{softmax}(x)_i = \\frac{e^{x_i - \\max_j x_j}}{\\sum_{j=1}^{@N@} e^{x_j - \\max_k x_k}}",
    "Y_{ij} \\approx s_{x,i} \\, s_{w,j} \\sum_{k=1}^{@K@} X_{q,ik} \\, W_{q,jk}",
    "T \\ge \\max\\left(\\frac{\\text{FLOPs}}{\\pi}, \\frac{\\text{Bytes}}{\\beta}\\right) = \\max\\left(\\frac{2 \\cdot @M@^3}{\\pi}, \\frac{3 \\cdot @M@^2 \\cdot 2}{\\beta}\\right)",
    "\\mathbb{E}[\\text{tokens}] = \\sum_{i=0}^{@B@} \\alpha^i = \\frac{1 - \\alpha^{@B@+1}}{1 - \\alpha}",
    "\\text{Attention}(Q, K, V) = \\operatorname{softmax}\\left(\\frac{Q K^\\top}{\\sqrt{d_k}}\\right) V, \\quad d_k = @K@",
    "\\hat{w} = \\arg\\min_{\\hat w} \\lVert W X - \\hat W X \\rVert_2^2, \\quad \\delta_F = -\\frac{w_q - \\operatorname{quant}(w_q)}{[H_F^{-1}]_{qq}} \\cdot (H_F^{-1})_{:,q}",
    "\\text{AMAT} = t_{hit} + r_{miss} \\times t_{penalty} = 1 + 0.0@B@ \\times @N@",
    "\\mathcal{L}_{aux} = E \\sum_{i=1}^{@M@} f_i P_i, \\qquad P_i = \\frac{1}{T} \\sum_{t=1}^{T} g_i(x_t)",
    "\\begin{pmatrix} c_{00} & c_{01} \\\\ c_{10} & c_{11} \\end{pmatrix} = \\sum_{k=0}^{@K@-1} \\begin{pmatrix} a_{0k} \\\\ a_{1k} \\end{pmatrix} \\begin{pmatrix} b_{k0} & b_{k1} \\end{pmatrix}",
)
INLINE_MATH = (
    "$O(N^2 d)$", "$\\alpha = 0.@B@$", "$2^{@B@}$", "$W \\in \\mathbb{R}^{@M@ \\times @K@}$",
    "$\\sqrt{d_k}$", "$e^{x - m}$", "$\\lceil N / @K@ \\rceil$", "$\\sum_i x_i$",
    "$f^{@B@}$", "$t_{mem} \\approx @N@\\,\\text{ns}$",
)  # fmt: skip
HEADINGS_ZH = ("背景", "动机", "实现", "性能分析", "小结", "问题", "实验结果", "细节")
HEADINGS_EN = ("Background", "Design", "Implementation", "Benchmarks", "Takeaways")
TOPICS = (
    "GEMM 优化", "FlashAttention", "KV cache", "INT8 量化", "warp 调度器", "bank conflict",
    "PagedAttention", "Raft 日志复制", "B+ 树索引", "虚拟内存", "Tensor Core", "cp.async",
    "Speculative decoding", "MoE routing", "LSM compaction", "FP8 training", "io_uring",
    "Triton autotune", "CUTLASS epilogue", "Roofline model",
)  # fmt: skip
TITLE_FORMS = (
    "{topic} 笔记（{n}）",
    "深入理解 {topic} · 第 {n} 篇",
    "{topic}: notes on part {n}",
    "A closer look at {topic}, #{n}",
    "{topic} 的实现与性能 {n}",
)

CODE_SNIPPETS = (
    (
        "cuda",
        "softmax.cu",
        """
        __global__ void softmax_kernel(const float* __restrict__ x, float* y, int n) {
            extern __shared__ float smem[];
            int row = blockIdx.x;
            float m = -INFINITY;
            for (int i = threadIdx.x; i < n; i += blockDim.x) {
                m = fmaxf(m, x[row * n + i]);
            }
            smem[threadIdx.x] = m;
            __syncthreads();
            for (int s = blockDim.x / 2; s > 0; s >>= 1) {
                if (threadIdx.x < s) smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
                __syncthreads();
            }
            m = smem[0];
            float sum = 0.f;
            for (int i = threadIdx.x; i < n; i += blockDim.x) {
                float e = __expf(x[row * n + i] - m);
                y[row * n + i] = e;
                sum += e;
            }
            // ... reduce `sum` the same way, then scale y by 1 / sum
        }
        """,
    ),
    (
        "cuda",
        "gemm_tile.cu",
        """
        template <int BM, int BN, int BK>
        __global__ void sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
            __shared__ float As[BM][BK];
            __shared__ float Bs[BK][BN];
            int tx = threadIdx.x % BN, ty = threadIdx.x / BN;
            float acc = 0.f;
            for (int k0 = 0; k0 < K; k0 += BK) {
                As[ty][tx % BK] = A[(blockIdx.y * BM + ty) * K + k0 + tx % BK];
                Bs[ty % BK][tx] = B[(k0 + ty % BK) * N + blockIdx.x * BN + tx];
                __syncthreads();
                #pragma unroll
                for (int k = 0; k < BK; ++k) acc += As[ty][k] * Bs[k][tx];
                __syncthreads();
            }
            C[(blockIdx.y * BM + ty) * N + blockIdx.x * BN + tx] = acc;
        }
        """,
    ),
    (
        "cuda",
        "async_copy.cu",
        """
        // Double buffering with cp.async: load tile k+1 while computing tile k.
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\\n" :: "r"(smem_addr), "l"(gmem_ptr));
        asm volatile("cp.async.commit_group;\\n" ::);
        asm volatile("cp.async.wait_group 1;\\n" ::);
        __syncthreads();
        uint32_t frag[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\\n"
                     : "=r"(frag[0]), "=r"(frag[1]), "=r"(frag[2]), "=r"(frag[3])
                     : "r"(smem_frag_addr));
        """,
    ),
    (
        "cpp",
        "lru_cache.hpp",
        """
        #include <list>
        #include <unordered_map>

        template <typename K, typename V>
        class LruCache {
         public:
          explicit LruCache(std::size_t capacity) : capacity_(capacity) {}

          std::optional<V> get(const K& key) {
            auto it = index_.find(key);
            if (it == index_.end()) return std::nullopt;
            items_.splice(items_.begin(), items_, it->second);
            return it->second->second;
          }

          void put(const K& key, V value) {
            if (auto it = index_.find(key); it != index_.end()) items_.erase(it->second);
            items_.emplace_front(key, std::move(value));
            index_[key] = items_.begin();
            if (items_.size() > capacity_) {
              index_.erase(items_.back().first);
              items_.pop_back();
            }
          }

         private:
          std::size_t capacity_;
          std::list<std::pair<K, V>> items_;
          std::unordered_map<K, typename std::list<std::pair<K, V>>::iterator> index_;
        };
        """,
    ),
    (
        "cpp",
        "spinlock.cpp",
        """
        #include <atomic>
        #include <thread>

        class SpinLock {
          std::atomic_flag flag_ = ATOMIC_FLAG_INIT;

         public:
          void lock() noexcept {
            while (flag_.test_and_set(std::memory_order_acquire)) {
              while (flag_.test(std::memory_order_relaxed)) std::this_thread::yield();
            }
          }
          void unlock() noexcept { flag_.clear(std::memory_order_release); }
        };
        """,
    ),
    (
        "python",
        "quantize.py",
        '''
        import torch


        def quantize_per_channel(w: torch.Tensor, bits: int = 8):
            """Symmetric per-output-channel quantization of a weight matrix."""
            qmax = 2 ** (bits - 1) - 1
            scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / qmax
            q = torch.round(w / scale).clamp(-qmax - 1, qmax).to(torch.int8)
            return q, scale


        def dequantize(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
            return q.to(torch.float32) * scale
        ''',
    ),
    (
        "python",
        "triton_add.py",
        """
        import triton
        import triton.language as tl


        @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (256, 512, 1024)], key=["n"])
        @triton.jit
        def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            pid = tl.program_id(axis=0)
            offsets = pid * BLOCK + tl.arange(0, BLOCK)
            mask = offsets < n
            x = tl.load(x_ptr + offsets, mask=mask)
            y = tl.load(y_ptr + offsets, mask=mask)
            tl.store(out_ptr + offsets, x + y, mask=mask)
        """,
    ),
)

SUMMARIES = (
    "关于 {topic} 的笔记：从原理到实现，附带公式推导和可以运行的代码。",
    "Notes on {topic}: the math, a reference implementation and where the time goes.",
    "{topic} 的性能分析：瓶颈在哪里、怎么测量、哪些优化真正有效。",
)

FIRST_DATE = datetime.date(2016, 1, 1)
LAST_DATE = datetime.date(2026, 11, 30)


def fill(template: str, rng: random.Random) -> str:
    """Replace the number placeholders of a template with random values."""
    for mark, choices in (
        ("@N@", (64, 128, 256, 512, 1024, 2048, 4096)),
        ("@M@", (8, 16, 32, 64, 128)),
        ("@K@", (2, 3, 4, 5, 6, 8)),
        ("@B@", (7, 8, 9, 11, 12, 14, 17)),
        ("@T@", (2048, 4096, 8192, 32768)),
    ):
        while mark in template:
            template = template.replace(mark, str(rng.choice(choices)), 1)
    return template


def block_id(rng: random.Random) -> str:
    """Return a block id like the admin's (a UUID), drawn from the seeded generator."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def source(text: str) -> str:
    """Dedent a snippet and drop its blank first and last lines."""
    return textwrap.dedent(text).strip("\n")


def prose(rng: random.Random, chinese: bool) -> str:
    """Return one paragraph of text with inline math, Chinese or English."""
    pool = ZH_PARAGRAPHS if chinese else EN_PARAGRAPHS
    text = fill(rng.choice(pool), rng)
    if rng.random() < 0.5:
        extra = fill(rng.choice(INLINE_MATH), rng)
        text += f" 例如 {extra}。" if chinese else f" For example, {extra}."
    return text


@dataclass
class PostSpec:
    """What the generator needs to make one post."""

    title: str
    slug: str
    summary: str
    date: datetime.date
    updated: datetime.date
    tags: tuple[str, ...]
    body: list[dict]


def post_dates(rng: random.Random) -> tuple[datetime.date, datetime.date]:
    """Return (date, updated): spread over ten years, updated up to a year later."""
    span = (LAST_DATE - FIRST_DATE).days
    date = FIRST_DATE + datetime.timedelta(days=rng.randrange(span))
    updated = min(
        LAST_DATE, date + datetime.timedelta(days=rng.choice((0, 0, 30, 200, 400)))
    )
    return date, updated


def body_blocks(
    rng: random.Random, *, sections: int, formulas: int, code_blocks: int
) -> list[dict]:
    """Return a body of `sections` headed parts with display math and code spread in."""
    chinese = rng.random() < 0.7
    headings = HEADINGS_ZH if chinese else HEADINGS_EN
    extras = ["math"] * formulas + ["code"] * code_blocks
    rng.shuffle(extras)
    per_section = [extras[i::sections] for i in range(sections)]
    blocks: list[dict] = [_paragraph(rng, chinese)]
    for number, kinds in enumerate(per_section, start=1):
        text = f"{rng.choice(headings)} {number}"
        blocks.append(_block(rng, "heading", {"text": text, "level": "h2"}))
        blocks.append(_paragraph(rng, chinese))
        for kind in kinds:
            blocks.append(_math(rng) if kind == "math" else _code(rng))
            if rng.random() < 0.5:
                blocks.append(_paragraph(rng, chinese))
    blocks.append(
        _block(
            rng,
            "callout",
            {"kind": "tip", "title": "小结", "body": f"<p>{prose(rng, chinese)}</p>"},
        )
    )
    return blocks


def _block(rng: random.Random, kind: str, value: object) -> dict:
    return {"type": kind, "value": value, "id": block_id(rng)}


def _paragraph(rng: random.Random, chinese: bool) -> dict:
    html = "".join(f"<p>{prose(rng, chinese)}</p>" for _ in range(rng.choice((1, 2))))
    return _block(rng, "paragraph", html)


def _math(rng: random.Random) -> dict:
    return _block(
        rng, "math", {"tex": fill(rng.choice(DISPLAY_MATH), rng), "label": ""}
    )


def _code(rng: random.Random) -> dict:
    language, filename, code = rng.choice(CODE_SNIPPETS)
    value = {
        "language": language,
        "filename": filename,
        "code": source(code),
        "highlight_lines": "",
        "line_numbers": True,
    }
    return _block(rng, "code", value)


def title_for(rng: random.Random, number: int) -> str:
    return rng.choice(TITLE_FORMS).format(topic=rng.choice(TOPICS), n=number)


def post_spec(rng: random.Random, number: int) -> PostSpec:
    """Return an ordinary post: a few thousand characters, some math and code."""
    date, updated = post_dates(rng)
    return PostSpec(
        title=title_for(rng, number),
        slug=f"post-{number}",
        summary=rng.choice(SUMMARIES).format(topic=rng.choice(TOPICS)),
        date=date,
        updated=updated,
        tags=tuple(rng.sample(TAG_NAMES, 3)),
        body=body_blocks(
            rng,
            sections=rng.choice((3, 4, 5)),
            formulas=rng.choice((1, 2, 3)),
            code_blocks=rng.choice((1, 2)),
        ),
    )


def math_heavy_spec(rng: random.Random) -> PostSpec:
    """Return the longest post: ~300 formulas (display and inline) and ~50 code blocks."""
    date, updated = post_dates(rng)
    body = body_blocks(rng, sections=25, formulas=120, code_blocks=50)
    inline = sum(
        block["value"].count("$") // 2
        for block in body
        if block["type"] in ("paragraph",)
    )
    # Top up with paragraphs until display + inline formulas reach ~300.
    while 120 + inline < 300:
        block = _paragraph(rng, True)
        inline += block["value"].count("$") // 2
        body.insert(-1, block)
    return PostSpec(
        title="FlashAttention 全推导：公式与 kernel（长文）",
        slug="flash-attention-derivation",
        summary="从 online softmax 到 FlashAttention v1–v3 的完整推导：三百个公式、五十段代码。",
        date=date,
        updated=updated,
        tags=("cuda", "attention", "flash-attention"),
        body=body,
    )


# Markdown files for the import test.


def markdown_post(rng: random.Random, number: int, *, length: int = 10_000) -> str:
    """Return a Markdown post of about `length` characters with front matter."""
    spec = post_spec(rng, number)
    lines = [
        "---",
        f'title: "{spec.title}"',
        f"date: {spec.date.isoformat()}",
        f"updated: {spec.updated.isoformat()}",
        f"tags: [{', '.join(spec.tags)}]",
        f'summary: "{spec.summary}"',
        "---",
        "",
    ]
    chinese = rng.random() < 0.7
    size = 0
    part = 0
    while size < length:
        part += 1
        chunk = [f"## {rng.choice(HEADINGS_ZH if chinese else HEADINGS_EN)} {part}", ""]
        chunk += [prose(rng, chinese), ""]
        chunk += ["$$", fill(rng.choice(DISPLAY_MATH), rng), "$$", ""]
        chunk += [prose(rng, chinese), ""]
        language, filename, code = rng.choice(CODE_SNIPPETS)
        chunk += [f'```{language} title="{filename}"', source(code), "```", ""]
        if part % 3 == 0:
            chunk += ["> [!NOTE]", f"> {prose(rng, chinese)}", ""]
        text = "\n".join(chunk)
        size += len(text)
        lines.append(text)
    return "\n".join(lines)
