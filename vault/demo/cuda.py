"""Posts of the `/cuda/` section and its `/cuda/cute/` series."""

from datetime import date

from vault.demo.base import (
    Post,
    Series,
    callout,
    code,
    heading,
    html_figure,
    image,
    markdown,
    math,
    paragraph,
    quote,
    table,
)
from vault.demo.figures import BANK_CONFLICT_HTML, BANK_SWIZZLE, ROOFLINE

QUANTIZATION_CUDA = Post(
    slug="quantization-cuda",
    title="quantization cuda",
    date=date(2026, 9, 3),
    updated=date(2026, 9, 3),
    tags=("cuda", "quantization"),
    summary=(
        "Quantization CUDA 的笔记：动态量化中权重在预处理阶段量化、激活在运行时量化，"
        "用 INT8 相乘、INT32 累加，最后 rescale 回浮点；并与不量化、仅权重量化"
        "（weight-only）两种流程对比。"
    ),
    body=[
        heading("三种流程"),
        paragraph(
            "<ul>"
            "<li><b>动态量化（Dynamic Quantization）</b>：权重在预处理阶段量化，激活在运行时"
            "量化；INT8 相乘、INT32 累加，最后 rescale 回浮点。</li>"
            "<li><b>不量化（Not Quantized）</b>：权重和激活都保持浮点，乘法和累加都用浮点。</li>"
            "<li><b>仅权重量化（Weight Only）</b>：权重以 INT8/INT4 存储，计算前反量化回浮点，"
            "激活保持浮点。省下的是显存和带宽，不是算力。</li>"
            "</ul>"
        ),
        heading("动态量化的数学表达"),
        paragraph(
            "<p>激活 $X$ 的每一行（token $i$）取对称的 scale $s_{x,i}$，"
            "权重 $W$ 的每个输出通道 $j$ 取 $s_{w,j}$：</p>"
        ),
        math(
            r"""
            \begin{aligned}
            s_{x,i} &= \frac{\max_k |X_{ik}|}{127}, \qquad
            X_{q,ik} = \operatorname{round}\left(\frac{X_{ik}}{s_{x,i}}\right) \\
            Y_{ij} &\approx s_{x,i} \, s_{w,j} \sum_k X_{q,ik} \, W_{q,jk}
            \end{aligned}
            """
        ),
        paragraph(
            "<p>$\\sum_k X_{q,ik} W_{q,jk}$ 在 INT32 中累加：两个 INT8 的乘积绝对值最多 "
            "$2^{14}$，INT32 能容纳 $2^{17}$ 个这样的乘积相加而不溢出，"
            "对常见的 hidden size 绰绰有余。</p>"
        ),
        code(
            "python",
            '''
            import torch


            def dynamic_quant_linear(x, w_int8, w_scale):
                """x: [tokens, in] 浮点；w_int8: [out, in]；w_scale: [out]。"""
                # 激活在运行时按 token 量化
                x_scale = x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-8) / 127
                x_int8 = torch.round(x / x_scale).clamp(-128, 127).to(torch.int8)
                # INT8 x INT8 -> INT32 累加（CPU 上用 int32 matmul 模拟 Tensor Core）
                acc = x_int8.to(torch.int32) @ w_int8.to(torch.int32).T
                # rescale 回浮点：per-token scale 乘行，per-channel scale 乘列
                return acc.to(torch.float32) * x_scale * w_scale
            ''',
            filename="dynamic_quant.py",
            highlight_lines="7-8",
        ),
        callout(
            "note",
            "<p>两个 scale 都是外积形式，可以放进 GEMM 的 epilogue 里乘回去，"
            "INT8 GEMM 的主循环不用改。</p>",
            title="scale 放在哪里",
        ),
    ],
)

PERFORMANCE_CHECKLIST = Post(
    slug="cuda-performance-checklist",
    title="cuda performance checklist",
    date=date(2026, 9, 3),
    updated=date(2026, 9, 3),
    tags=("cuda", "performance"),
    summary=(
        "CUDA Performance Checklist：DRAM 与 SRAM 的区别（GPU 的 global memory 是 DRAM，"
        "shared memory 是 SRAM），以及合并全局内存访问、提高占用率、判断内存受限还是"
        "计算受限、减少分支发散、tiling、私有化与 thread coarsening。"
    ),
    body=[
        markdown(
            r"""
            ## DRAM vs SRAM

            - **DRAM**：1 个晶体管加 1 个电容，密度高、便宜，需要周期性刷新。GPU 的
              global memory（HBM）是 DRAM。
            - **SRAM**：6 个晶体管，更快也更贵，占面积、发热更多。GPU 的 shared memory、L1
              和寄存器堆都是 SRAM。

            ## 先判断瓶颈

            算术强度 $I = \frac{\text{FLOPs}}{\text{Bytes}}$ 决定 kernel 落在
            roofline 的哪一侧。一次 kernel 的时间至少是

            $$
            T \ge \max\left(\frac{\text{FLOPs}}{\pi}, \frac{\text{Bytes}}{\beta}\right)
            $$

            其中 $\pi$ 是峰值算力，$\beta$ 是内存带宽。

            > [!NOTE]
            > 先判断 kernel 是 memory-bound 还是 compute-bound，再选优化手段：对
            > memory-bound 的 kernel，减少 FLOPs 几乎没有收益。

            ## Performance Checklist

            | 优化 | 对计算单元的好处 | 对内存的好处 |
            | --- | --- | --- |
            | 提高占用率（Maximize occupancy） | 更多 warp 隐藏流水线延迟 | 更多并发访存隐藏 DRAM 延迟 |
            | 合并全局内存访问（Coalescing） | 更少等待 global memory 的停顿 | 更少的访存事务，用满 cache line |
            | 减少分支发散（Control divergence） | 更高的 SIMD 效率 | — |
            | 复用数据的 tiling | 更少等待 global memory 的停顿 | 更少的 global memory 流量 |
            | 私有化（Privatization） | 更少等待原子操作的停顿 | 更少的原子操作竞争 |
            | Thread coarsening | 更少的冗余计算、分支与同步 | 更少的冗余访存 |

            占用率不是越高越好：寄存器换 ILP 往往更划算[^occ]。

            ## 合并访存

            ```cuda
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            // 合并：相邻线程读相邻的 4 字节，一个 warp 只需 4 个 32 字节 sector
            float a = in[i];
            // 跨步：相邻线程相隔 stride 个元素，一个 warp 最多触发 32 个 sector
            float b = in[i * stride];
            ```

            [^occ]: Vasily Volkov, *Better Performance at Lower Occupancy*, GTC 2010.
            """
        ),
    ],
)

BASIC_CONCEPT = Post(
    slug="cuda-basic-concept",
    title="CUDA Basic Concept",
    date=date(2026, 9, 3),
    updated=date(2026, 9, 3),
    tags=("cuda",),
    summary=(
        "CUDA Async Copy & Pinned Memory：CPU 分配的内存通常是 Pageable（可分页）的，"
        "拷贝到 GPU 时驱动要先把数据复制到一块临时的 Pinned Memory 再做 DMA，多了一次"
        "CPU 侧拷贝；用 pinned memory 和 stream 才能让拷贝与计算重叠。"
    ),
    body=[
        heading("CUDA Async Copy & Pinned Memory"),
        paragraph(
            "<p>通常情况下，CPU 分配的内存是 Pageable（可分页）的，操作系统可能把它换出到磁盘。"
            "从 Pageable 内存拷贝到 GPU 时，CUDA 驱动在幕后做了三件事：申请一块临时的 "
            "Pinned Memory（page-locked）；把数据从 Pageable 内存复制过去；再通过 DMA 传给 GPU。"
            "多出来的那次 CPU 侧拷贝，就是 pageable 传输慢的原因。</p>"
        ),
        code(
            "cuda",
            """
            float* h_x = nullptr;
            float* d_x = nullptr;
            cudaMallocHost(&h_x, n * sizeof(float));  // pinned：GPU 可以直接 DMA
            cudaMalloc(&d_x, n * sizeof(float));

            cudaStream_t stream;
            cudaStreamCreate(&stream);
            cudaMemcpyAsync(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice, stream);
            scale<<<grid, block, 0, stream>>>(d_x, 2.0f, n);
            cudaStreamSynchronize(stream);

            cudaStreamDestroy(stream);
            cudaFree(d_x);
            cudaFreeHost(h_x);
            """,
            filename="pinned_copy.cu",
            highlight_lines="3,8",
        ),
        callout(
            "warning",
            "<p>从 pageable 内存发起的 <code>cudaMemcpyAsync</code> 并不异步：它要等数据"
            "复制进驱动的 staging buffer 才返回。Pinned memory 也不宜分配太多，"
            "它锁住的物理内存操作系统无法换出。</p>",
            title="Async 不一定异步",
        ),
        heading("Stream 与重叠"),
        paragraph(
            "<p>同一个 stream 里的操作按提交顺序执行，不同 stream 之间可以并发。"
            "要让 H2D 拷贝、kernel 和 D2H 拷贝重叠，需要 pinned memory、非默认 stream，"
            "并把数据切成块、交错提交到多个 stream。</p>"
        ),
    ],
)

ILP_MLP = Post(
    slug="ilp-and-mlp",
    title="CUDA 中的 ILP 与 MLP：从依赖链到延迟隐藏",
    date=date(2026, 9, 4),
    updated=date(2026, 9, 6),
    tags=("cuda", "performance"),
    summary=(
        "从 warp scheduler、依赖链与 Little's Law 出发，区分 CUDA 中的指令级并行和内存级"
        "并行，并结合 GEMM、GEMV、FlashAttention、可对照的 Kernel 与 Nsight Compute "
        "指标说明何时以及如何提升二者。"
    ),
    body=[
        paragraph(
            "<p>GPU 隐藏延迟靠的是<b>并行度</b>。每个 SM sub-partition 的 warp scheduler "
            "每周期最多发射一条指令；只要有一个 warp 的下一条指令已经就绪，流水线就不会空转。"
            "就绪的来源有两种：更多的 warp（TLP），或者同一个 warp 里更多互不依赖的指令（ILP）。"
            "访存则看有多少请求同时在路上（MLP）。</p>"
        ),
        heading("Little's Law"),
        math(
            r"\text{in-flight bytes} = \text{latency} \times \text{bandwidth}"
            r" \approx 600\,\text{ns} \times 3.35\,\text{TB/s} \approx 2\,\text{MB}",
            label="1",
        ),
        paragraph(
            "<p>H100 上要跑满 HBM，全芯片需要约 2 MB 的读请求同时在飞，"
            "平均到 132 个 SM 是每个 SM 约 15 KB，也就是近千个 16 字节的 load。"
            "一个线程只发一个 4 字节 load 的 kernel，即使 occupancy 满了也达不到这个数。</p>"
        ),
        heading("ILP：拆开依赖链"),
        code(
            "cuda",
            """
            // 一条依赖链：每个 FMA 都要等上一个的结果
            float acc_serial = 0.f;
            for (int k = 0; k < K; ++k) acc_serial = fmaf(a[k], b[k], acc_serial);

            // 四条独立的链（假设 K % 4 == 0）：调度器每周期都有可发射的 FMA
            float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
            for (int k = 0; k < K; k += 4) {
                acc0 = fmaf(a[k + 0], b[k + 0], acc0);
                acc1 = fmaf(a[k + 1], b[k + 1], acc1);
                acc2 = fmaf(a[k + 2], b[k + 2], acc2);
                acc3 = fmaf(a[k + 3], b[k + 3], acc3);
            }
            float acc = (acc0 + acc1) + (acc2 + acc3);
            """,
            highlight_lines="8-11",
        ),
        heading("MLP：让更多 load 同时在路上"),
        code(
            "cuda",
            """
            __global__ void scale_vec4(const float4* __restrict__ x, float4* __restrict__ y,
                                       float a, int n4) {
                int stride = gridDim.x * blockDim.x;
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
                    float4 v = x[i];  // 一条 128-bit load，搬 4 个元素
                    v.x *= a; v.y *= a; v.z *= a; v.w *= a;
                    y[i] = v;
                }
            }
            """,
            filename="scale_vec4.cu",
            highlight_lines="5",
        ),
        callout(
            "note",
            "<p>每多一条独立的链就多占几个寄存器，可能降低 occupancy。"
            "用 Nsight Compute 对照 <code>Stall Long Scoreboard</code>（等访存）和 "
            "<code>Stall Wait</code>（等固定延迟的依赖）的占比，判断该加 ILP 还是 MLP。</p>",
            title="ILP 不是免费的",
        ),
    ],
)

BANK_CONFLICT = Post(
    slug="bank-conflict-swizzle",
    title="从 Bank Conflict 到 CUTLASS Swizzle：推导 ldmatrix 的访存布局",
    date=date(2026, 9, 8),
    updated=date(2026, 9, 10),
    tags=("cuda", "cutlass", "shared-memory"),
    cover=BANK_SWIZZLE,
    summary=(
        "从 shared memory 的 32 个 bank 出发，逐地址推导 ldmatrix 的行地址、寄存器分配与 "
        "bank conflict，再解释 CUTLASS 的 XOR permutation、CuTe Swizzle 参数和 "
        "producer/consumer 布局约束，附交互图与可运行验证程序。"
    ),
    body=[
        heading("32 个 bank"),
        paragraph(
            "<p>Shared memory 被分成 32 个 bank，每个 bank 每周期提供 4 字节。"
            "字节地址为 $a$ 的 word 落在 bank $b = \\lfloor a / 4 \\rfloor \\bmod 32$。"
            "一个 warp 的一次访问里，若有 $n$ 个线程访问同一个 bank 的<b>不同</b>地址，"
            "就要串行 $n$ 次，称为 $n$-way bank conflict；访问同一地址是广播，不算冲突。</p>"
        ),
        html_figure(
            BANK_CONFLICT_HTML,
            height=200,
            caption="拖动滑块：线程 $t$ 访问第 $t \\cdot s$ 个 4 字节 word",
        ),
        paragraph(
            "<p>规律是冲突度等于 $\\gcd(s, 32)$：$s$ 为奇数时总是无冲突，"
            "$s = 2^k$ 时是 $2^k$-way。</p>"
        ),
        heading("行主序 tile 上的 ldmatrix"),
        paragraph(
            "<p><code>ldmatrix</code> 每读一个 $8 \\times 8$ 的 b16 矩阵，由 8 个线程各提供"
            "一行的地址，每行 16 字节。若 tile 是每行 64 个 half 的行主序数组，一行正好 "
            "128 字节、覆盖全部 32 个 bank，于是 8 行的同一个 16 字节 chunk 都落在同样的 "
            "4 个 bank 上：8-way conflict。</p>"
        ),
        code(
            "ptx",
            """
            // 32 个线程各提供一个 16 字节对齐的行地址，读回 4 个 8x8 b16 矩阵
            ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%r4];
            """,
            line_numbers=False,
        ),
        image(
            BANK_SWIZZLE,
            alt="上图：8 行的 chunk 0 都落在 bank 0–3；下图：swizzle 后 8 行分别落在 8 组不同的 bank",
            caption="ldmatrix 一个 phase 的 8 个行地址：行主序时 8-way 冲突，XOR swizzle 后无冲突",
        ),
        heading("验证", "h3"),
        code(
            "c",
            """
            #include <stdio.h>

            /* 一个 ldmatrix phase：8 个行地址，每行 16 字节（4 个 bank） */
            static int max_ways(const int *row_addr) {
                int count[32] = {0}, ways = 0;
                for (int r = 0; r < 8; ++r)
                    for (int w = 0; w < 4; ++w) {
                        int bank = (row_addr[r] / 4 + w) % 32;
                        if (++count[bank] > ways) ways = count[bank];
                    }
                return ways;
            }

            int main(void) {
                int plain[8], swizzled[8];
                for (int r = 0; r < 8; ++r) {
                    plain[r] = r * 128;                   /* 第 r 行的 chunk 0 */
                    swizzled[r] = r * 128 + ((0 ^ r) << 4); /* chunk 0 ^ r */
                }
                printf("plain: %d-way, swizzled: %d-way\\n", max_ways(plain), max_ways(swizzled));
                return 0;
            }
            """,
            filename="bank_check.c",
            highlight_lines="17-18",
        ),
        paragraph("<p>输出 <code>plain: 8-way, swizzled: 1-way</code>。</p>"),
        heading("XOR Swizzle"),
        paragraph(
            "<p>办法是把第 $r$ 行的第 $c$ 个 16 字节 chunk 存到第 $c \\oplus (r \\bmod 8)$ "
            "个位置：同一列块的 8 行被打散到 8 个不同的 chunk，也就是 32 个不同的 bank。"
            "CuTe 把它写成 <code>Swizzle&lt;3, 3, 3&gt;</code>，作用在元素偏移 $x$ 上：</p>"
        ),
        math(
            r"\operatorname{Swizzle}\langle B, M, S \rangle(x) = x \oplus"
            r" \left( \left\lfloor \frac{x}{2^{M+S}} \right\rfloor \bmod 2^{B} \right) \cdot 2^{M}",
            label="1",
        ),
        paragraph(
            "<p>取 $B = M = S = 3$：偏移的第 6–8 位（行号的低 3 位）被 XOR 到第 3–5 位"
            "（chunk 编号），低 3 位（chunk 内的 8 个 half）不变。</p>"
        ),
        code(
            "cuda",
            """
            // 每行 64 个 half（128 字节）的 tile，等价于 CuTe 的 Swizzle<3, 3, 3>
            __device__ __forceinline__ int swizzled_offset(int row, int col) {
                int chunk = (col >> 3) ^ (row & 7);  // 16 字节为一个 chunk
                return row * 64 + (chunk << 3) + (col & 7);
            }
            """,
            filename="swizzle.cuh",
            highlight_lines="3-4",
        ),
        heading("验证", "h3"),
        paragraph(
            "<p>在 GPU 上用 Nsight Compute 看 shared memory 的冲突计数，swizzle 之后应当为 0：</p>"
        ),
        code(
            "bash",
            """
            ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\\
            l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum ./swizzle_test
            """,
            line_numbers=False,
        ),
        callout(
            "danger",
            "<p>Swizzle 改变的是数据<b>存放的位置</b>。写 shared memory 的一方"
            "（<code>cp.async</code> 或 TMA）和读的一方（<code>ldmatrix</code>）"
            "必须使用同一个 swizzle：只改一端不会变慢，而是读到错误的数据。</p>",
            title="两端必须一致",
        ),
    ],
)

CUTE_EXPLAINED = Post(
    slug="cute-flashattention-2",
    title="CuTe 详解：以 FlashAttention-2 拆解 Layout、TiledCopy 与 TiledMMA",
    date=date(2026, 9, 11),
    updated=date(2026, 9, 15),
    tags=("cuda", "cute", "cutlass"),
    summary=(
        "以一份可运行的 FlashAttention-2 前向 Kernel 为贯穿案例，从坐标函数和线程所有权"
        "出发，详解 CuTe 的 Layout algebra、Tensor、TiledCopy、TiledMMA、寄存器重解释与"
        "流水线，并用正确性和性能实验检查这些抽象最终生成了什么。"
    ),
    body=[
        paragraph(
            "<p>CuTe 的核心只有一个概念：<b>Layout 是从坐标到偏移的函数</b>，"
            "由形状相同的 Shape 和 Stride 描述。二维时 $L(i, j) = i \\cdot d_0 + j \\cdot d_1$；"
            "Shape 可以嵌套，于是“把第 0 维拆成 $(2, 4)$”这样的分块都能写成 layout 的代数运算。</p>"
        ),
        heading("Layout：坐标到偏移的函数"),
        code(
            "cpp",
            """
            #include <cute/tensor.hpp>
            using namespace cute;

            // 8x4，列主序：stride (1, 8)
            auto col = make_layout(make_shape(Int<8>{}, Int<4>{}), make_stride(Int<1>{}, Int<8>{}));
            // 同样的 shape，行主序：stride (4, 1)
            auto row = make_layout(make_shape(Int<8>{}, Int<4>{}), make_stride(Int<4>{}, Int<1>{}));

            print_layout(col);  // 打印每个坐标对应的偏移
            print(row(3, 2));   // 3 * 4 + 2 * 1 = 14
            """,
            filename="layout.cpp",
        ),
        heading("TiledMMA"),
        paragraph(
            "<p>FlashAttention-2 在 Ampere 上用 <code>mma.sync.m16n8k16</code>，一个 warp "
            "一次算 $16 \\times 8 \\times 16$。4 个 warp 沿 M 排开，每个 thread block "
            "处理 Q 的 64 行：</p>"
        ),
        code(
            "cpp",
            """
            using MmaAtom = MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>;
            using TiledMma = decltype(make_tiled_mma(MmaAtom{},
                                                     Layout<Shape<_4, _1, _1>>{},  // 4 个 warp 沿 M
                                                     Tile<_64, _16, _16>{}));      // 每次 64x16x16

            TiledMma mma;
            auto thr_mma = mma.get_slice(threadIdx.x);
            Tensor tSrQ = thr_mma.partition_fragment_A(sQ);  // 本线程持有的 Q 分片
            Tensor tSrK = thr_mma.partition_fragment_B(sK);  // 本线程持有的 K 分片
            """,
            filename="flash_fwd.cu",
            highlight_lines="2-4",
        ),
        heading("TiledCopy 与寄存器重解释"),
        paragraph(
            "<p>global → shared 用 128-bit 的 <code>cp.async</code>，每个线程一次搬 8 个 half；"
            "shared → register 用 <code>ldmatrix</code>，并用 <code>make_tiled_copy_A</code> "
            "让拷贝的线程分布与 TiledMMA 的 A 分片一致。第二个 GEMM $O = PV$ 直接复用第一个 "
            "GEMM 的累加器：m16n8k16 的 C 分片转成 half 后恰好是 A 分片的排布，"
            "只需在寄存器里重新解释 layout，不经过 shared memory。</p>"
        ),
        callout(
            "tip",
            "<p>调试 layout 时先在 host 上 <code>print_layout</code> 或 "
            "<code>print_latex</code>，确认每个线程拿到哪些坐标，再上 GPU。</p>",
            title="先打印，再上卡",
        ),
    ],
)

CUTE_README = Post(
    slug="readme",
    title="README",
    date=date(2026, 9, 11),
    updated=date(2026, 9, 16),
    tags=("cute", "benchmark"),
    summary=(
        "CuTe FlashAttention-2 case-study benchmark This directory preserves the exact "
        "teaching kernel, benchmark harness, raw results, and figure generator used by "
        "the corresponding tom-jerr blog post."
    ),
    body=[
        heading("CuTe FlashAttention-2 case-study benchmark"),
        paragraph(
            "<p>This directory keeps everything behind the numbers in the CuTe post: the "
            "teaching kernel exactly as discussed, the benchmark harness, the raw results "
            "and the script that draws the figures. Every figure in the post can be "
            "regenerated from here.</p>"
        ),
        markdown(
            """
            | Path | Contents |
            | --- | --- |
            | `kernel/flash_fwd_cute.cu` | the teaching kernel, one file |
            | `bench/` | harness: checks against a reference attention, times with CUDA events |
            | `results/*.csv` | raw timings, one row per (seqlen, headdim) |
            | `plot.py` | regenerates the figures from the CSV files |
            """
        ),
        heading("Reproduce"),
        code(
            "bash",
            """
            cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=80
            cmake --build build -j
            ./build/bench --seqlen 4096 --headdim 128 --iters 100 > results/a100.csv
            python plot.py results/a100.csv
            """,
            line_numbers=False,
        ),
        callout(
            "info",
            "<p>Timings depend on GPU clocks. Lock them with "
            "<code>nvidia-smi --lock-gpu-clocks</code>, or compare only runs from the "
            "same session.</p>",
        ),
    ],
)

UNDERSTANDING_H100 = Post(
    slug="understanding-h100",
    title="理解 H100：从硬件数据路径到 Nsight Compute 瓶颈分析",
    date=date(2026, 9, 15),
    updated=date(2026, 9, 20),
    tags=("cuda", "hopper", "profiling"),
    cover=ROOFLINE,
    summary=(
        "沿着 kernel 的分配、指令发射、访存与异步矩阵计算，建立 H100 的硬件工作模型，"
        "并把 Nsight Compute 的吞吐、调度、事务和依赖指标组织成可验证的瓶颈诊断方法。"
    ),
    body=[
        paragraph(
            "<p>H100 SXM5 有 132 个 SM，每个 SM 分成 4 个 sub-partition，各有一个 warp "
            "scheduler。每个 SM 有 256 KB 的 L1/shared memory（shared memory 最多配置 "
            "228 KB），全芯片共享 50 MB L2，HBM3 带宽约 3.35 TB/s。</p>"
        ),
        heading("先画 Roofline"),
        math(r"P = \min(\pi,\ \beta \cdot I)", label="1"),
        paragraph(
            "<p>代入 $\\pi \\approx 989$ TFLOP/s（BF16 dense）与 $\\beta \\approx 3.35$ TB/s，"
            "拐点 $I^* = \\pi / \\beta \\approx 295$ FLOP/B。FP16 的 GEMV 每读 2 字节权重只做 "
            "2 次 FLOP，$I \\approx 1$，离拐点差两个数量级，只能受带宽限制。</p>"
        ),
        image(
            ROOFLINE,
            alt="H100 SXM5 的 roofline：带宽斜线在约 295 FLOP/B 处与 989 TFLOP/s 的算力上限相交",
            caption="H100 SXM5（BF16 dense）的 roofline，拐点 $I^* \\approx 295$ FLOP/B",
        ),
        heading("用 Nsight Compute 验证"),
        code(
            "bash",
            """
            # 跳过 10 次 warmup，只采集一次 flash kernel
            ncu --set full -k regex:flash --launch-skip 10 --launch-count 1 -o fa2 ./bench
            # 在终端里看 Details 页，或者用 ncu-ui 打开 fa2.ncu-rep
            ncu --import fa2.ncu-rep --page details
            """,
            filename="profile.sh",
        ),
        heading("吞吐：Speed Of Light", "h3"),
        paragraph(
            "<p>先看 <code>sm__throughput</code> 与 <code>dram__throughput</code> 的 "
            "<code>pct_of_peak_sustained_elapsed</code>。两者都明显低于峰值时，"
            "瓶颈通常不在吞吐而在延迟，接着看调度。</p>"
        ),
        heading("调度：Warp State Statistics", "h3"),
        paragraph(
            "<p>Issue slot 利用率低时，看 warp 停在哪里：<code>Stall Long Scoreboard</code> "
            "是在等 global/local memory，<code>Stall Barrier</code> 是在 "
            "<code>__syncthreads()</code> 上等待，<code>Stall Math Pipe Throttle</code> "
            "说明某个执行单元已经饱和。</p>"
        ),
        callout(
            "warning",
            "<p>ncu 默认用 <code>--clock-control base</code> 把 GPU 锁在基础频率，"
            "并在每次 replay 前清空缓存。它测得的 Duration 适合互相比较，"
            "不适合直接与线上的 profile 对比。</p>",
            title="计时不等于线上",
        ),
    ],
)

FLASHATTENTION = Post(
    slug="flashattention-v1-v4",
    title="FlashAttention v1-v4：从 IO 感知到异步流水与硬件协同",
    date=date(2026, 9, 18),
    updated=date(2026, 9, 21),
    tags=("cuda", "attention"),
    summary=(
        "沿着 FlashAttention v1-v4 的论文、作者博客与源码，拆解 Ampere、Hopper、Blackwell "
        "如何改变 attention 的数据路径、线程分工和瓶颈，并用调度图解释 copy、MMA、softmax "
        "与输出校正如何真正重叠。"
    ),
    body=[
        paragraph(
            "<p>标准 attention 先算 $S = QK^\\top$，再算 $P = \\operatorname{softmax}(S)$，"
            "最后 $O = PV$。序列长度为 $N$、head 维度为 $d$ 时，$S$ 和 $P$ 都是 "
            "$N \\times N$ 的矩阵，要在 HBM 里写一次、读一次。FlashAttention 的出发点是："
            "attention 受限于<b>访存</b>，而不是 FLOPs。</p>"
        ),
        quote(
            "<p>We argue that a missing principle is making attention algorithms "
            "IO-aware—accounting for reads and writes between levels of GPU memory.</p>",
            source="Tri Dao et al., FlashAttention (2022)",
        ),
        heading("IO 复杂度"),
        table(
            "HBM 访问量（$M$ 为 SRAM 容量）",
            [
                ["实现", "HBM 读写", "额外显存"],
                ["标准 attention", r"$\Theta(Nd + N^2)$", r"$\Theta(N^2)$"],
                ["FlashAttention", r"$\Theta(N^2 d^2 M^{-1})$", r"$\Theta(N)$"],
            ],
        ),
        paragraph(
            "<p>典型的 $d = 64$ 到 $128$、$M \\approx 100$ KB 时，$d^2$ 比 $M$ 小很多倍，"
            "HBM 访问因此少了数倍。</p>"
        ),
        heading("Online softmax"),
        paragraph(
            "<p>关键是 softmax 不必一次看到整行。把 $K, V$ 按块 $j = 1, \\dots, T_c$ 切开，"
            "每个 Q 块只维护行最大值 $m$、行和 $\\ell$ 与未归一化的输出 $O$：</p>"
        ),
        math(
            r"""
            \begin{aligned}
            m^{(j)} &= \max\left(m^{(j-1)}, \operatorname{rowmax}\left(S^{(j)}\right)\right) \\
            \ell^{(j)} &= e^{m^{(j-1)} - m^{(j)}} \, \ell^{(j-1)} + \operatorname{rowsum}\left(e^{S^{(j)} - m^{(j)}}\right) \\
            O^{(j)} &= e^{m^{(j-1)} - m^{(j)}} \, O^{(j-1)} + e^{S^{(j)} - m^{(j)}} \, V^{(j)}
            \end{aligned}
            """,
            label="1",
        ),
        paragraph(
            "<p>$e^{m^{(j-1)} - m^{(j)}}$ 是对旧结果的逐行<b>校正因子</b>。"
            "全部块处理完后再做一次 $O = \\operatorname{diag}(\\ell)^{-1} O$；"
            "v2 把除法留到最后，就是为了减少非 matmul 的 FLOPs。</p>"
        ),
        code(
            "python",
            '''
            import numpy as np


            def attention_by_blocks(q, k, v, block=64):
                """softmax(q k^T / sqrt(d)) v，不构造 N x N 矩阵。"""
                n, d = q.shape
                m = np.full(n, -np.inf)
                ell = np.zeros(n)
                o = np.zeros_like(q)
                for j in range(0, k.shape[0], block):
                    s = q @ k[j : j + block].T / np.sqrt(d)
                    m_new = np.maximum(m, s.max(axis=1))
                    p = np.exp(s - m_new[:, None])
                    scale = np.exp(m - m_new)
                    ell = scale * ell + p.sum(axis=1)
                    o = scale[:, None] * o + p @ v[j : j + block]
                    m = m_new
                return o / ell[:, None]
            ''',
            filename="blocked_attention.py",
            highlight_lines="14-16",
        ),
        heading("v1 → v4：跟着硬件走"),
        heading("v2：更好的并行划分", "h3"),
        paragraph(
            "<p>v1 在 batch 和 head 两个维度上并行；v2 额外沿序列长度（Q 的行块）并行，"
            "长序列、小 batch 时也能占满 A100 的 108 个 SM。thread block 内部，"
            "v2 让 4 个 warp 切分 Q、共享 K 和 V，不再像 v1 那样切分 K（split-K）"
            "再通过 shared memory 合并中间结果。</p>"
        ),
        heading("v3：Hopper 的异步流水", "h3"),
        paragraph(
            "<p>H100 有 TMA（异步的 bulk copy）和 WGMMA（warpgroup 级的异步 MMA）。"
            "v3 用 warp specialization 把只发 TMA 的 producer warp 和做 MMA 与 softmax 的 "
            "consumer warpgroup 分开，再用两个 warpgroup 的 ping-pong 调度，"
            "让一个做 softmax 时另一个在做 GEMM。FP16 前向最高约 740 TFLOP/s。</p>"
        ),
        callout(
            "tip",
            "<p>H100 SXM5 的 FP16 matmul 峰值约 989 TFLOP/s，而算 exp 的特殊函数单元只有约 "
            "3.9 TFLOP/s。$d = 128$ 时 matmul FLOPs 是 exp 的 512 倍，按吞吐折算，"
            "exp 要占到 matmul 一半左右的时间，所以必须与 GEMM 重叠。</p>",
            title="为什么 softmax 会成为瓶颈",
        ),
        heading("v4：Blackwell", "h3"),
        paragraph(
            "<p>Blackwell 的 tcgen05 MMA 把累加器放进专用的 Tensor Memory（TMEM），"
            "MMA 吞吐再次提高，exp 的瓶颈更加突出。按作者公开的介绍，v4 一方面用 FMA "
            "单元上的多项式近似计算一部分 exp，另一方面只在行最大值变化足够大时才做输出校正。</p>"
        ),
    ],
)

CUTE = Series(
    slug="cute",
    title="CuTe",
    intro=(
        "<p>用 CuTe 从零写 FlashAttention-2：Layout、TiledCopy、TiledMMA，"
        "以及复现实验用的 benchmark。</p>"
    ),
    ordering="explorer",
    children=(CUTE_EXPLAINED, CUTE_README),
)

SECTION = Series(
    slug="cuda",
    title="CUDA",
    intro=(
        "<p>GPU 硬件与 CUDA kernel：访存、调度、Tensor Core，"
        "以及用 Nsight Compute 找到瓶颈的方法。</p>"
    ),
    ordering="newest",
    # Posts of one date are created oldest first: listings break date ties by
    # newest pk, which reproduces the order of the author's `#cuda` page.
    children=(
        QUANTIZATION_CUDA,
        PERFORMANCE_CHECKLIST,
        BASIC_CONCEPT,
        ILP_MLP,
        BANK_CONFLICT,
        CUTE,
        UNDERSTANDING_H100,
        FLASHATTENTION,
    ),
)
