"""Posts of the `/llm_inference/` section: serving, speculative decoding, quantization."""

from datetime import date

from vault.demo.base import Post, Series, callout, code, heading, math, paragraph, table

QUANTIZATION_SURVEY = Post(
    slug="llm-quantization-survey",
    title="LLM 量化综述：数据格式、PTQ 与 QAT 的算法演进",
    date=date(2026, 8, 20),
    updated=date(2026, 9, 14),
    tags=("llm", "quantization"),
    summary=(
        "从 INT8、FP8、INT4、MXFP4、NVFP4 的表示范围与舍入误差出发，按 8 bit、4 bit 和"
        "低于 4 bit 梳理 PTQ/QAT，解释各方法解决的问题、相对前作的创新、核心优化与数值"
        "稳定性，并对应到 llm-compressor 的工程实现。"
    ),
    body=[
        paragraph(
            "<p>量化把权重（有时连同激活和 KV cache）从 BF16 压到 8 bit、4 bit 甚至更低。"
            "<b>PTQ</b>（训练后量化）只用少量校准数据，<b>QAT</b>（量化感知训练）"
            "在训练中模拟量化误差。难点始终是同一个：少数幅度很大的 outlier。</p>"
        ),
        heading("8 bit：把 outlier 挪走"),
        paragraph(
            "<p>LLM.int8() 把幅度超过阈值的少数激活通道拆出来用 FP16 计算，其余走 INT8。"
            "SmoothQuant 换了个思路：激活难量化、权重好量化，那就逐通道乘一个 $s_j$，"
            "把难度从激活“迁移”到权重上，数学上等价：</p>"
        ),
        math(
            r"""
            \begin{aligned}
            Y &= \left(X \operatorname{diag}(s)^{-1}\right) \left(\operatorname{diag}(s) \, W\right) = \hat{X} \hat{W} \\
            s_j &= \frac{\max\left(|X_j|\right)^{\alpha}}{\max\left(|W_j|\right)^{1 - \alpha}}
            \end{aligned}
            """,
            label="1",
        ),
        paragraph(
            "<p>$\\alpha$ 控制迁移的力度，常用 $0.5$；激活 outlier 更严重的模型要调大。</p>"
        ),
        heading("4 bit：二阶信息与旋转"),
        paragraph(
            "<p>GPTQ 逐层求解 $\\min_{\\hat{W}} \\lVert WX - \\hat{W}X \\rVert_F^2$："
            "按列量化，每量化一列就用 Hessian $H = 2XX^\\top$ 的逆把误差补偿到尚未量化的列上。"
            "AWQ 观察到约 1% 的权重通道最重要，按激活幅度给这些通道放大 scale 来保护它们。"
            "QuaRot、SpinQuant 则先对权重和激活做正交旋转（Hadamard 或学习得到的旋转），"
            "抹平 outlier，使 W4A4 成为可能。</p>"
        ),
        heading("低于 4 bit 与 QAT"),
        paragraph(
            "<p>到 2 bit 附近，标量量化的网格太粗，QuIP# 和 AQLM 转向向量量化：QuIP# 先做 "
            "incoherence processing，再用 $E_8$ 格点码本；AQLM 用多个码本的加法组合。"
            "再往下，PTQ 难以保住精度，需要 LLM-QAT、EfficientQAT 这类训练方法。</p>"
        ),
        heading("对应到 llm-compressor"),
        code(
            "python",
            """
            from llmcompressor import oneshot
            from llmcompressor.modifiers.quantization import GPTQModifier
            from llmcompressor.modifiers.smoothquant import SmoothQuantModifier

            # W8A8：先 SmoothQuant 迁移激活的难度，再用 GPTQ 量化权重
            recipe = [
                SmoothQuantModifier(smoothing_strength=0.8),
                GPTQModifier(targets="Linear", scheme="W8A8", ignore=["lm_head"]),
            ]
            oneshot(
                model=model,
                dataset="open_platypus",
                recipe=recipe,
                max_seq_length=2048,
                num_calibration_samples=512,
            )
            """,
            filename="w8a8.py",
            highlight_lines="6-9",
        ),
    ],
)

EAGLE_TO_DFLASH = Post(
    slug="eagle-to-dflash-2",
    title="从 EAGLE 到 DFlash 2：SGLang 与 SpecForge 的投机解码训练和推理",
    date=date(2026, 8, 28),
    updated=date(2026, 9, 17),
    tags=("llm", "speculative-decoding", "sglang"),
    summary=(
        "沿 EAGLE、EAGLE-2、EAGLE-3、DFlash、DSpark 和 DFlash 2 的演进，解释 draft 的训练"
        "目标、数据对齐、推理状态与验证预算，并对照 SpecForge 训练和 SGLang serving "
        "源码串起完整流程。"
    ),
    body=[
        paragraph(
            "<p>投机解码（speculative decoding）用一个便宜的 draft 一次猜出 $\\gamma$ 个 "
            "token，再由目标模型一次前向并行验证，输出分布与目标模型完全一致。"
            "若每个 token 被接受的概率为 $\\alpha$（假设相互独立），一轮验证期望产出：</p>"
        ),
        math(
            r"\mathbb{E}[\text{tokens per step}] = \frac{1 - \alpha^{\gamma + 1}}{1 - \alpha}",
            label="1",
        ),
        heading("EAGLE 系列"),
        heading("EAGLE：在特征层自回归", "h3"),
        paragraph(
            "<p>EAGLE 的 draft 只有一层 decoder：输入目标模型倒数第二层的特征，以及"
            "<b>提前一步</b>的 token embedding，预测下一个位置的特征，再借目标模型的 "
            "LM head 出 token。特征序列比 token 序列更规律；带上已经采样出的 token，"
            "又消除了特征层的不确定性。</p>"
        ),
        heading("EAGLE-2：动态 draft 树", "h3"),
        paragraph(
            "<p>EAGLE-2 发现 draft 的置信度很接近真实的接受率，于是按路径上置信度的乘积"
            "扩展和剪枝 draft 树，取代固定形状的树。</p>"
        ),
        heading("EAGLE-3：只监督 token", "h3"),
        paragraph(
            "<p>EAGLE-3 去掉特征预测的损失，只监督 token；输入改成低、中、高三层特征的融合，"
            "训练时模拟多步推理（training-time test），让 draft 在自己的预测上继续往下猜。"
            "这样训练数据越多，接受长度越长。</p>"
        ),
        heading("DFlash：一次起草一整块"),
        paragraph(
            "<p>DFlash 系列不再逐 token 自回归地起草，而是用 block diffusion 一次并行生成一整块"
            "候选，draft 的开销几乎与块长无关。代价是训练目标和推理状态都要重新设计，"
            "这正是对照 SpecForge 与 SGLang 源码要看清楚的部分。</p>"
        ),
        heading("在 SGLang 里跑起来"),
        code(
            "bash",
            """
            # draft 权重来自 SpecForge 的训练输出
            python -m sglang.launch_server \\
                --model-path meta-llama/Llama-3.1-8B-Instruct \\
                --speculative-algorithm EAGLE3 \\
                --speculative-draft-model-path ./outputs/llama3.1-8b-eagle3 \\
                --speculative-num-steps 5 \\
                --speculative-eagle-topk 8 \\
                --speculative-num-draft-tokens 32
            """,
            filename="serve.sh",
            highlight_lines="4-8",
        ),
        paragraph(
            "<p>训练一个 8B 模型的 EAGLE-3 draft 并不贵：主要开销是在线生成目标模型的隐藏状态。"
            "按云上的租卡价格，一次几小时的调参实验，账单通常是 $5 or $10。</p>"
        ),
        paragraph(
            "<p>比较不同配置时，看的不只是接受长度：把吞吐除以 GPU 单价"
            "（例如 \\$2.5/GPU·h），得到每美元的 token 数，才是该优化的目标。</p>"
        ),
        callout(
            "info",
            "<p>draft 树越大，验证的 FLOPs 越多。并发低时验证几乎免费；"
            "batch 变大后 GPU 不再空闲，验证开销会吃掉收益，"
            "这时要调小 <code>--speculative-num-draft-tokens</code>，甚至关掉投机解码。</p>",
            title="验证预算",
        ),
    ],
)

FP_FORMATS = Post(
    slug="fp4-fp8-int8-int4",
    title="FP4、FP8 与 INT8/INT4：数值范围、块缩放与推理计算精度",
    date=date(2026, 9, 13),
    updated=date(2026, 9, 18),
    tags=("cuda", "quantization"),
    summary=(
        "从标量编码、共享 scale 与有效位宽出发，拆解 INT8、FP8、MXFP8、INT4、MXFP4、NVFP4 "
        "的表示范围，并沿 GEMM、GQA/MLA Attention 数据流解释 8 bit/4 bit 推理真正使用的"
        "乘法、累加、Softmax 与输出精度。"
    ),
    body=[
        paragraph(
            "<p>一个低比特格式由两部分决定：<b>标量编码</b>（整数，或 E/M 位数不同的浮点）"
            "和<b>缩放方式</b>（整个 tensor、每个通道，或每 16/32 个元素共享一个 scale）。"
            "后者决定了有效动态范围，往往比前者更重要。</p>"
        ),
        table(
            "常见推理数值格式",
            [
                ["格式", "位分配 S-E-M", "最大值", "最小正规数", "缩放"],
                ["INT8", "整数", "$127$", "—", "per-tensor / per-channel"],
                ["FP8 E4M3", "1-4-3", "$448$", "$2^{-6}$", "per-tensor 或 block"],
                ["FP8 E5M2", "1-5-2", "$57344$", "$2^{-14}$", "per-tensor"],
                ["MXFP8", "1-4-3", "$448$", "$2^{-6}$", "每 32 个元素共享 E8M0"],
                ["INT4", "整数", "$7$", "—", "group，常见 128"],
                ["MXFP4", "1-2-1", "$6$", "$1$", "每 32 个元素共享 E8M0"],
                [
                    "NVFP4",
                    "1-2-1",
                    "$6$",
                    "$1$",
                    "每 16 个元素共享 E4M3，另有 FP32 tensor scale",
                ],
            ],
        ),
        heading("浮点编码"),
        paragraph(
            "<p>以 E4M3 为例（exponent bias 为 7），设指数域为 $e$、尾数域为 $m$：</p>"
        ),
        math(
            r"""
            x = \begin{cases}
            (-1)^s \cdot 2^{e - 7} \cdot \left(1 + \frac{m}{8}\right), & 1 \le e \le 15 \\
            (-1)^s \cdot 2^{-6} \cdot \frac{m}{8}, & e = 0
            \end{cases}
            """,
            label="1",
        ),
        paragraph(
            "<p>最大值是 $e = 15, m = 6$：$2^{8} \\times 1.75 = 448$（$m = 7$ 留给 NaN）。"
            "FP4 E2M1 只有 15 个不同的值，可以直接列出来：</p>"
        ),
        code(
            "python",
            '''
            def e2m1_values():
                """FP4 E2M1 能表示的全部数值（exponent bias = 1）。"""
                values = set()
                for e in range(4):
                    for m in range(2):
                        if e == 0:
                            v = 0.5 * m  # subnormal：2^(1-1) * (m / 2)
                        else:
                            v = 2.0 ** (e - 1) * (1 + m / 2)
                        values.update({v, -v})
                return sorted(values)


            print(e2m1_values())
            # [-6.0, -4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
            ''',
            filename="fp4_values.py",
            highlight_lines="6-9",
        ),
        heading("累加与 Softmax 的精度"),
        paragraph(
            "<p>低比特只用在乘法的输入上。Tensor Core 的 INT8 GEMM 累加在 INT32，"
            "FP8 GEMM 累加在 FP32，但 Hopper 上实际保留的累加位宽更窄：DeepSeek-V3 "
            "的技术报告测得约 14 bit，因此他们每 $N_C = 128$ 个元素就把部分和提升到 "
            "CUDA core 上做 FP32 累加。Attention 里 $QK^\\top$ 之后的 softmax 一般在 FP32 "
            "中完成，$P$ 再转回 FP8 或 BF16 去乘 $V$。</p>"
        ),
        callout(
            "warning",
            "<p>OCP 的 E4M3（即 <code>float8_e4m3fn</code>）只用 S.1111.111 表示 NaN，"
            "没有 Inf。不饱和的转换（例如 PyTorch 的 <code>.to(torch.float8_e4m3fn)</code>）"
            "遇到超出 ±448 的值会得到 NaN，量化前要先 clamp。</p>",
            title="E4M3 没有无穷大",
        ),
    ],
)

MICROSCALING_PAPER = Post(
    slug="bridging-the-gap-fp4",
    title=(
        "Bridging the Gap Between Promise and Performance for Microscaling FP4 "
        "Quantization 论文笔记"
    ),
    date=date(2026, 9, 13),
    updated=date(2026, 9, 19),
    tags=("cuda", "quantization", "论文"),
    summary=(
        "以格式、量化算法和 GPU Kernel 的跨层约束为主线，拆解 ICLR 2026 论文 Bridging the "
        "Gap Between Promise and Performance for Microscaling FP4 Quantization，解释旋转为何"
        "改善 MXFP4 却可能伤害 NVFP4、MR-GPTQ 如何修正这一矛盾，以及 QuTLASS 的真实收益"
        "与部署边界。"
    ),
    body=[
        paragraph(
            "<p>MXFP4 与 NVFP4 的元素都是 FP4 E2M1，可表示 "
            "$\\pm\\{0, 0.5, 1, 1.5, 2, 3, 4, 6\\}$；区别全在缩放。MXFP4 每 32 个元素共享一个 "
            "E8M0 scale，只能取 2 的幂；NVFP4 每 16 个元素共享一个 E4M3 scale，"
            "外加一个 per-tensor 的 FP32 scale。</p>"
        ),
        heading("两种 scale"),
        math(
            r"""
            \begin{aligned}
            s_{\text{MX}} &= 2^{\left\lfloor \log_2 \max_i |x_i| \right\rfloor - 2} \\
            s_{\text{NV}} &= \operatorname{E4M3}\left(\frac{\max_i |x_i|}{6}\right)
            \end{aligned}
            """,
            label="1",
        ),
        paragraph(
            "<p>MX 的 scale 向下取到 2 的幂，block 内的最大值被映射到 $[4, 8)$，"
            "落在 $(6, 8)$ 的部分只能截断到 6；NVFP4 的 scale 更细，最大值几乎正好对到 6 上。"
            "（为简洁，$s_{\\text{NV}}$ 省略了 per-tensor scale。）</p>"
        ),
        heading("旋转为什么对两种格式效果不同"),
        paragraph(
            "<p>Hadamard 旋转把 block 内 outlier 的能量摊到所有元素上，分布更接近高斯。"
            "对 MXFP4，由 outlier 决定的粗 scale 是主要误差来源，旋转后收益明显。"
            "NVFP4 的 block 只有 16 个元素，scale 本身已经贴着局部的最大值，"
            "旋转带来的好处小，还会把原本集中在少数元素上的幅度分给所有元素，"
            "论文的分析表明这可能让误差变大。MR-GPTQ 的做法是把旋转限制在与量化 group "
            "等大的块内，并和 GPTQ 的逐列误差补偿结合。</p>"
        ),
        heading("QuTLASS"),
        paragraph(
            "<p>QuTLASS 是论文配套的 CUTLASS kernel 库，把在线旋转、量化和 FP4 GEMM "
            "融合在一起。读它的加速比要看 batch：小 batch 的 decode 受带宽限制，"
            "收益主要来自权重变小；大 batch 的 prefill 才真正用上 Blackwell 的 FP4 算力。</p>"
        ),
        callout(
            "info",
            "<p>E2M1 的 $6 = 1.5 \\times 2^2$；E4M3 的 $448 = 1.75 \\times 2^8$；"
            "E8M0 只有指数，表示 $2^{-127}$ 到 $2^{127}$。</p>",
            title="格式速记",
        ),
    ],
)

SECTION = Series(
    slug="llm_inference",
    title="LLM 推理",
    intro=(
        "<p>大模型推理：量化格式与算法、投机解码，以及 SGLang 等 serving 框架的实现。</p>"
    ),
    ordering="newest",
    # The FP4 paper notes are created after the formats post of the same date, so
    # they come first in date-ordered listings, as on the author's `#cuda` page.
    children=(QUANTIZATION_SURVEY, EAGLE_TO_DFLASH, FP_FORMATS, MICROSCALING_PAPER),
)
