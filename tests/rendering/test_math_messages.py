"""KaTeX's errors in Chinese: the reason translated, position and token kept."""

import pytest

from rendering import check_math
from rendering.math_messages import chinese_math_error, chinese_reason


@pytest.mark.parametrize(
    ("tex", "chinese"),
    [
        (
            r"\frac{1}{\foo}",
            r"公式错误：未定义的命令：\foo（第 10 个字符处）：\frac{1}{\̲f̲o̲o̲}",
        ),
        ("a}", "公式错误：多余的“}”（第 2 个字符处）：a}̲"),
        ("{a", "公式错误：缺少“}”（在公式末尾）：{a"),
        (
            "x_1_2",
            "公式错误：重复的下标：一个符号只能有一个 _，多层请用 {} 分组"
            "（第 4 个字符处）：x_1_̲2",
        ),
        (
            r"\begin{array}{q}a\end{array}",
            "公式错误：未知的列对齐方式：q（应为 l、c 或 r）（第 15 个字符处）："
            r"\begin{array}{q̲}a\end{array}",
        ),
        (r"\left( x", r"公式错误：缺少“\right”（在公式末尾）：\left( x"),
        ("$x$", "公式错误：不能在公式中使用“$”（第 1 个字符处）：$̲x$"),
        (r"\def\x", "公式错误：缺少宏定义"),
    ],
)
def test_katex_messages_are_chinese_with_their_position_and_token(tex, chinese):
    assert chinese_math_error(check_math(tex, display=True)) == chinese


def test_an_unknown_reason_keeps_katex_words_and_its_position():
    message = "KaTeX parse error: Something new at position 3: ab̲c"
    assert (
        chinese_math_error(message) == "公式错误：Something new（第 3 个字符处）：ab̲c"
    )


def test_a_message_not_from_katex_parse_is_unchanged():
    assert chinese_math_error("render timed out") == "render timed out"


def test_missing_dollar_is_translated():
    message = "KaTeX parse error: Missing $ inserted at position 4: ab c"
    assert chinese_math_error(message) == "公式错误：缺少 $（第 4 个字符处）：ab c"


def test_the_live_preview_gets_only_the_reason_in_chinese():
    message = (
        "KaTeX parse error: Unexpected end of input in a macro argument, "
        "expected '}' at end of input: \\frac{a}{"
    )
    assert chinese_reason(message) == "命令的参数没有结束，缺少“}”"
    assert chinese_reason("KaTeX parse error: Something new at position 3: x") == (
        "Something new"
    )


def test_a_formula_past_a_bound_says_which_in_chinese(monkeypatch):
    from rendering import math as math_module
    from tests.math_bombs import MACRO_BOMB

    assert chinese_math_error(check_math(MACRO_BOMB, display=True)) == (
        "公式展开后过大（超过 10,000 个元素），请简化宏定义。"
    )
    monkeypatch.setattr(math_module, "MAX_OUTPUT_BYTES", 2_000)
    assert chinese_math_error(check_math(r"\sum_{i=0}^{n} x_i", True)) == (
        "公式展开后过大（超过 2 KB），请简化宏定义。"
    )
    assert chinese_math_error(math_module.timeout_message(1.0)) == (
        "公式排版超时（超过 1 秒），请简化公式。"
    )
    too_long = check_math("x" * (math_module.MAX_TEX_LENGTH + 1))
    assert (
        chinese_math_error(too_long) == "公式太长（20001 个字符，上限 20000），请拆分。"
    )
