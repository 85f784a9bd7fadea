"""Blocks of code and display math, highlighted and typeset on the server."""

from django.core.exceptions import ValidationError
from django.utils.safestring import mark_safe
from wagtail import blocks

from rendering import (
    check_math,
    code_frame,
    diagram_frame,
    has_tag,
    language_choices,
    parse_line_spec,
    render_math_safe,
)

from .base import (
    GROUP_CODE,
    CodeTextBlock,
    Text,
    checking_math,
    is_feed,
    math_error_text,
    math_output,
    public_paths,
)


def code_languages() -> list[tuple[str, str]]:
    """Return the code block's language choices (a callable, so migrations name it)."""
    return language_choices()


class CodeBlock(blocks.StructBlock):
    """Source code highlighted by Pygments on the server."""

    # Curated languages first, then every other one Pygments knows.
    language = blocks.ChoiceBlock(label="语言", choices=code_languages, default="cuda")
    filename = blocks.CharBlock(
        label="文件名",
        required=False,
        max_length=255,
        help_text="文件名或说明，显示在代码上方",
    )
    code = CodeTextBlock(label="代码", rows=10, language_field="language")
    highlight_lines = blocks.CharBlock(
        label="高亮行", required=False, max_length=255, help_text="高亮的行，例如 1,3-5"
    )
    line_numbers = blocks.BooleanBlock(label="显示行号", required=False, default=True)

    class Meta:
        icon = "code"
        template = "blocks/code_block.html"
        group = GROUP_CODE
        description = "代码（CUDA、C++、Python、PTX…），服务器端高亮"
        preview_value = {
            "language": "cuda",
            "filename": "vector_add.cu",
            "code": (
                "__global__ void add(const float* a, const float* b, float* c, int n) {\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) c[i] = a[i] + b[i];\n"
                "}"
            ),
            "highlight_lines": "2",
            "line_numbers": True,
        }
        text = {
            "language": Text.NONE,
            "filename": Text.PROSE,
            "code": Text.CODE,
            "highlight_lines": Text.NONE,
            "line_numbers": Text.NONE,
        }

    def clean(self, value):
        value = super().clean(value)
        spec = value.get("highlight_lines") or ""
        if spec.strip():
            try:
                lines = parse_line_spec(spec)
            except ValueError as error:
                raise blocks.StructBlockValidationError(
                    {"highlight_lines": ValidationError(str(error))}
                ) from error
            count = value["code"].count("\n") + 1
            beyond = [n for n in lines if n > count]
            if beyond:
                raise blocks.StructBlockValidationError(
                    {
                        "highlight_lines": ValidationError(
                            f"代码只有 {count} 行，不能高亮第 {beyond[0]} 行。"
                        )
                    }
                )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        spec = value.get("highlight_lines") or ""
        try:
            lines = parse_line_spec(spec) if spec.strip() else []
        except ValueError:
            lines = []  # Stored before validation existed: show the code anyway.
        # Pygments escapes the source; the frame escapes its label and file name.
        context["html"] = mark_safe(  # noqa: S308
            code_frame(
                value["code"],
                value["language"],
                filename=value.get("filename") or "",
                highlight_lines=lines,
                line_numbers=bool(value.get("line_numbers")),
                inline_styles=is_feed(parent_context),
            )
        )
        return context


class MathBlock(blocks.StructBlock):
    """Display math in LaTeX, typeset by KaTeX on the server."""

    tex = blocks.TextBlock(
        label="公式",
        rows=4,
        help_text="LaTeX，不需要 $$；多行公式用 \\begin{aligned}…\\end{aligned}",
    )
    label = blocks.CharBlock(
        label="编号",
        required=False,
        max_length=32,
        help_text="编号，例如 1（显示为 (1)）",
    )
    numbered = blocks.BooleanBlock(
        label="自动编号",
        required=False,
        default=False,
        help_text="按公式在文中的顺序编号 (1)、(2)…；填了编号或公式里有 \\tag{…} 时以它为准",
    )

    class Meta:
        icon = "decimal"
        template = "blocks/math_block.html"
        group = GROUP_CODE
        description = "独立公式（LaTeX）"
        preview_value = {
            "tex": "\\operatorname{softmax}(x)_i = \\frac{e^{x_i - m}}{\\sum_j e^{x_j - m}}",
            "label": "1",
            "numbered": False,
        }
        form_classname = "math-block"
        text = {"tex": Text.TEX, "label": Text.LABEL, "numbered": Text.NONE}

    def clean(self, value):
        value = super().clean(value)
        message = check_math(value["tex"], display=True) if checking_math() else None
        if message:
            raise blocks.StructBlockValidationError(
                {"tex": ValidationError(math_error_text([message]))}
            )
        if value.get("label", "").strip() and has_tag(value["tex"]):
            raise blocks.StructBlockValidationError(
                {"label": ValidationError("公式里已有 \\tag{…}，编号请留空。")}
            )
        return value

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        context["html"] = mark_safe(  # noqa: S308  KaTeX escapes
            render_math_safe(value["tex"], True, math_output(parent_context))
        )
        # Editors write "1" or "(1)"; the template adds the brackets. A \tag is
        # shown by KaTeX; otherwise the body's automatic number, if switched on.
        label = (value.get("label") or "").strip().strip("()（）")
        number = (parent_context or {}).get("equation_number")
        if has_tag(value["tex"]):
            label = number = None
        context["label"] = label or number or ""
        context["auto_number"] = bool(number and not label)
        return context


class DiagramBlock(blocks.StructBlock):
    """A Mermaid diagram, drawn in the reader's browser from its source."""

    source = CodeTextBlock(
        label="Mermaid 源码",
        rows=8,
        help_text="Mermaid 语法，例如 flowchart LR 或 sequenceDiagram；"
        "下方预览随输入更新。没有 JavaScript 的读者和订阅看到源码。",
    )

    class Meta:
        icon = "site"
        template = "blocks/diagram_block.html"
        group = GROUP_CODE
        description = "Mermaid 图表（流程图、时序图…），在读者的浏览器中绘制"
        preview_value = {
            "source": (
                "flowchart LR\n"
                "    G[全局内存] -->|cp.async| S[共享内存]\n"
                "    S -->|ldmatrix| R[寄存器]\n"
                "    R --> T[Tensor Core]"
            ),
        }
        form_classname = "diagram-block"
        text = {"source": Text.CODE}

    def get_context(self, value, parent_context=None):
        context = super().get_context(value, parent_context=parent_context)
        # The source, escaped, in a <pre><code> the reader's script draws.
        context["html"] = mark_safe(diagram_frame(value["source"]))  # noqa: S308
        return context


DECONSTRUCT_ALIASES = public_paths(CodeBlock, MathBlock, DiagramBlock)
