"""Posts of the `/notes/` section: the CSAPP reading notes."""

from datetime import date

from vault.demo.base import (
    Post,
    Series,
    callout,
    code,
    heading,
    math,
    paragraph,
    quote,
    table,
)

CSAPP_TAGS = ("csapp", "system-arch")

LINKING = Post(
    slug="csapp-7-链接",
    title="csapp-7-链接",
    date=date(2023, 9, 2),
    updated=date(2023, 9, 2),
    tags=CSAPP_TAGS,
    summary="第 7 章链接：静态链接的两步（符号解析与重定位）、可重定位目标文件的各个节，"
    "以及链接器如何处理强符号与弱符号。",
    body=[
        heading("静态链接"),
        paragraph(
            "<p>链接器做两件事：<b>符号解析</b>，把每个符号引用和唯一的符号定义关联起来；"
            "<b>重定位</b>，把每个符号定义和一个内存位置关联，再修改所有对它的引用。"
            "编译器和汇编器只生成从地址 0 开始的代码节和数据节。</p>"
        ),
        heading("可重定位目标文件", "h3"),
        table(
            "ELF 可重定位目标文件中常见的节",
            [
                ["节", "内容"],
                [".text", "已编译程序的机器代码"],
                [".rodata", "只读数据，如 printf 的格式串、switch 的跳转表"],
                [".data", "已初始化的全局和静态变量"],
                [
                    ".bss",
                    "未初始化的静态变量，以及初始化为 0 的全局或静态变量；不占文件空间",
                ],
                [".symtab", "符号表：函数和全局变量的定义与引用"],
                [".rel.text / .rel.data", "代码和数据中需要重定位的位置"],
                [".line", "源代码行号与 .text 中机器指令的映射（gcc -g）"],
                ["COMMON", "未初始化的全局变量（伪节，只在可重定位文件中）"],
            ],
        ),
        heading("解析多重定义的符号", "h3"),
        paragraph(
            "<p>函数和已初始化的全局变量是强符号，未初始化的全局变量是弱符号。规则："
            "不允许有多个同名的强符号；一个强符号和多个弱符号同名时选强符号；"
            "只有弱符号时任选一个。</p>"
        ),
        code(
            "c",
            """
            /* foo.c */
            void f(void);
            int x = 15213;      /* 强符号 */
            int main(void) { f(); return 0; }

            /* bar.c */
            int x;              /* 弱符号：bar.c 里的 f 写的是 foo.c 的 x */
            void f(void) { x = 15212; }
            """,
            filename="foo.c / bar.c",
        ),
        callout(
            "warning",
            "<p>GCC 10 起默认 <code>-fno-common</code>：<code>int x;</code> 不再放进 "
            "COMMON，而是作为 .bss 中的定义，上面的例子会直接报 "
            "<code>multiple definition of `x'</code>。加 <code>-fcommon</code> 才是书里的行为。</p>",
            title="新版 GCC 的行为",
        ),
        heading("重定位"),
        paragraph(
            "<p>先把所有输入模块中相同类型的节合并成一个聚合节，并给每个节和符号分配运行时地址；"
            "再根据重定位条目修改引用。以 PC 相对引用 <code>R_X86_64_PC32</code> 为例：</p>"
        ),
        math(
            r"""
            \begin{aligned}
            \text{refaddr} &= \text{ADDR}(s) + r.\text{offset} \\
            {*}\text{refptr} &= \text{ADDR}(r.\text{symbol}) + r.\text{addend} - \text{refaddr}
            \end{aligned}
            """
        ),
    ],
)

EXCEPTIONAL_CONTROL_FLOW = Post(
    slug="csapp-8-异常控制流",
    title="csapp-8-异常控制流",
    date=date(2023, 9, 5),
    updated=date(2023, 9, 5),
    tags=CSAPP_TAGS,
    summary="第 8 章异常控制流：中断、陷阱、故障、终止四类异常，以及进程、fork 与 waitpid。",
    body=[
        heading("异常的四种类别"),
        paragraph(
            "<ul>"
            "<li><b>中断</b>：来自 I/O 设备的信号，异步发生，处理完返回下一条指令。</li>"
            "<li><b>陷阱</b>：有意的异常，比如系统调用，返回下一条指令。</li>"
            "<li><b>故障</b>：可能被修复的错误，比如缺页；修复后重新执行当前指令。</li>"
            "<li><b>终止</b>：不可恢复的错误，比如硬件奇偶校验错，不再返回。</li>"
            "</ul>"
        ),
        heading("进程控制"),
        paragraph(
            "<p><code>fork</code> 调用一次、返回两次：父进程里返回子进程的 PID，"
            "子进程里返回 0。父进程要用 <code>waitpid</code> 回收子进程，否则子进程退出后"
            "会成为僵尸进程。</p>"
        ),
        code(
            "c",
            """
            #include <stdio.h>
            #include <sys/wait.h>
            #include <unistd.h>

            int main(void) {
                pid_t pid = fork();
                if (pid == 0) {               /* 子进程 */
                    printf("child\\n");
                    return 0;
                }
                waitpid(pid, NULL, 0);        /* 父进程：等待并回收子进程 */
                printf("parent\\n");
                return 0;
            }
            """,
            filename="fork.c",
            highlight_lines="6,11",
        ),
    ],
)

RUNNING_PROGRAMS = Post(
    slug="csapp-在系统上运行程序",
    title="csapp-在系统上运行程序",
    date=date(2023, 9, 9),
    updated=date(2023, 9, 9),
    tags=CSAPP_TAGS,
    summary="CSAPP 第二部分“在系统上运行程序”的总结：从 gcc 的编译链接流程、加载器，"
    "到链接器解析多重定义全局符号的规则。",
    body=[
        heading("从源文件到可执行文件"),
        paragraph(
            "<p>gcc 是一个驱动程序：cpp 预处理生成 <code>.i</code>，cc1 编译成汇编 "
            "<code>.s</code>，as 汇编成可重定位目标文件 <code>.o</code>，最后 ld 链接成可执行文件。"
            "执行 <code>./prog</code> 时，shell 调用加载器，把 .text 和 .data 复制到内存，"
            "再跳转到程序入口。</p>"
        ),
        code(
            "bash",
            """
            gcc -E main.c -o main.i      # 预处理
            gcc -S main.i -o main.s      # 编译
            gcc -c main.s -o main.o      # 汇编
            gcc -c sum.c -o sum.o
            gcc main.o sum.o -o prog     # 链接
            ./prog
            """,
        ),
        heading("链接"),
        paragraph(
            "<p>链接器遇到强弱符号同名时不会报错：一个模块定义了 <code>int x = 15213; "
            "int y = 15212;</code>，另一个模块里未初始化的 <code>double x;</code> 会解析到前者的 "
            "<code>x</code>，对它写 8 个字节就会覆盖相邻的 <code>y</code>。"
            "用 <code>-fno-common</code>（GCC 10 起的默认）可以把它变成链接错误。</p>"
        ),
        quote(
            "<p>Linking is the process of collecting and combining various pieces of code "
            "and data into a single file that can be loaded (copied) into memory and "
            "executed.</p>",
            source="CSAPP, Chapter 7",
        ),
    ],
)

PROGRAM_STRUCTURE = Post(
    slug="csapp-程序的结构和执行",
    title="csapp-程序的结构和执行",
    date=date(2023, 9, 12),
    updated=date(2023, 9, 12),
    tags=CSAPP_TAGS,
    summary="CSAPP 第一部分“程序的结构和执行”的总结，以程序的机器级表示为例："
    "用基于条件的数据传送替代基于条件的控制转移。",
    body=[
        heading("程序的机器级表示"),
        paragraph(
            "<p>分支预测错了要付出大约 15 到 30 个周期的代价。对两个分支都很便宜、又难以预测的"
            "条件，编译器会把两个结果都算出来，再用条件传送指令 <code>cmov</code> 选一个。</p>"
        ),
        code(
            "c",
            """
            /* 基于条件的控制转移 */
            long absdiff(long x, long y) {
                if (x < y)
                    return y - x;
                return x - y;
            }

            /* 基于条件的数据传送：两个结果都算，再选一个 */
            long cmovdiff(long x, long y) {
                long rval = y - x;
                long eval = x - y;
                long ntest = x >= y;
                if (ntest) rval = eval;  /* 编译成 cmovge */
                return rval;
            }
            """,
            filename="absdiff.c",
            highlight_lines="10-13",
        ),
        paragraph(
            "<p>设预测错误的概率为 $p$，预测正确时耗时 $T_{OK}$，预测错误的额外代价为 "
            "$T_{MP}$，则平均耗时为：</p>"
        ),
        math(
            r"T_{\text{avg}}(p) = (1 - p)\,T_{OK} + p\,(T_{OK} + T_{MP}) = T_{OK} + p\,T_{MP}"
        ),
    ],
)

OPTIMIZING = Post(
    slug="csapp-5-优化程序性能",
    title="csapp-5-优化程序性能",
    date=date(2023, 9, 16),
    updated=date(2023, 9, 16),
    tags=CSAPP_TAGS,
    summary="第 5 章优化程序性能：编译器的能力与局限（内存别名、函数调用），"
    "以及消除循环中的低效率、减少过程调用和不必要的内存引用。",
    body=[
        quote(
            "<p>We should forget about small efficiencies, say about 97% of the time: "
            "premature optimization is the root of all evil.</p>",
            source="Donald Knuth, Structured Programming with go to Statements (1974)",
        ),
        heading("编译器的能力和局限性"),
        paragraph(
            "<p><b>内存别名</b>：两个指针可能指向同一个位置。<code>*xp += *yp; *xp += *yp;</code> "
            "不能被优化成 <code>*xp += 2 * *yp;</code>，因为 <code>xp == yp</code> 时前者得到 "
            "4 倍、后者得到 3 倍。编译器必须假设别名可能存在，这限制了优化。</p>"
        ),
        callout(
            "tip",
            "<p>用 <code>restrict</code> 告诉编译器两个指针不会指向同一块内存，"
            "它就能把值留在寄存器里、重排访存。</p>",
            title="restrict",
        ),
        heading("消除循环中的低效率"),
        paragraph(
            "<p>把循环里不变的计算（如 <code>vec_length(v)</code>）移到循环外，"
            "并用局部变量累积结果，避免每次迭代都读写 <code>*dest</code>：</p>"
        ),
        code(
            "c",
            """
            void combine4(vec_ptr v, data_t *dest) {
                long length = vec_length(v);
                data_t *data = get_vec_start(v);
                data_t acc = IDENT;
                for (long i = 0; i < length; i++)
                    acc = acc OP data[i];
                *dest = acc;
            }
            """,
            filename="combine4.c",
            highlight_lines="2-4",
        ),
    ],
)

MEMORY_HIERARCHY = Post(
    slug="csapp-6-存储器层次结构",
    title="csapp-6-存储器层次结构",
    date=date(2023, 9, 20),
    updated=date(2023, 9, 20),
    tags=CSAPP_TAGS,
    summary="第 6 章存储器层次结构：SRAM 与 DRAM、非易失性存储器与 SSD，"
    "以及高速缓存的组织方式。",
    body=[
        heading("RAM"),
        paragraph(
            "<p>SRAM 快但贵，用作高速缓存；DRAM 用作主存。DRAM 分时复用地址线以减少引脚，"
            "代价是访问时间更长：先把一整行复制到内部的行缓冲区，再从中取出一个单元。</p>"
        ),
        heading("固态硬盘"),
        paragraph(
            "<p>SSD 基于闪存，以页为单位读写，但只能以块为单位擦除。闪存翻译层把对逻辑块的请求"
            "翻译成对物理设备的访问，并把擦除平均分布到所有块上。随机写慢，是因为擦除一个块"
            "耗时较长，而且写一页前要先把块里其余的有效页复制走。</p>"
        ),
        heading("高速缓存的组织"),
        paragraph(
            "<p>$m$ 位地址被分成标记、组索引和块偏移三段，缓存由 $S$ 组、每组 $E$ 行、每行 $B$ 字节组成：</p>"
        ),
        math(
            r"m = t + s + b, \qquad S = 2^s, \quad B = 2^b, \quad C = S \times E \times B",
            label="6.1",
        ),
    ],
)

CSAPP = Series(
    slug="csapp",
    title="CSAPP",
    intro=(
        "<p>《深入理解计算机系统》（CSAPP）的读书笔记：程序的机器级表示、优化、"
        "存储器层次结构、链接与异常控制流。</p>"
    ),
    ordering="explorer",
    # The series' reading order, as on the author's site.
    children=(
        LINKING,
        EXCEPTIONAL_CONTROL_FLOW,
        RUNNING_PROGRAMS,
        PROGRAM_STRUCTURE,
        OPTIMIZING,
        MEMORY_HIERARCHY,
    ),
)

SECTION = Series(
    slug="notes",
    title="笔记",
    intro="<p>读书与课程笔记：计算机系统、数据库与体系结构。</p>",
    ordering="newest",
    children=(CSAPP,),
)
