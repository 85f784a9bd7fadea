"""KaTeX's error messages in Chinese, for the editors who read them in the admin.

KaTeX words a parse error as ``KaTeX parse error: <reason> at position N:
<context>``. The reasons an editor meets most are translated here; the
position, the offending token and KaTeX's marked context are kept as they are.
A reason not listed stays in KaTeX's English, so no message is ever lost.
"""

import re

_PREFIX = "KaTeX parse error: "
# "<reason> at position 12: <context>" or "<reason> at end of input: <context>".
_WHERE = re.compile(
    r"(?P<reason>.*?) at (?:position (?P<pos>\d+)|(?P<end>end of input))"
    r"(?::\s(?P<context>.*))?",
    re.S,
)


def _token(text: str) -> str:
    return "公式结尾" if text == "EOF" else f"“{text}”"


def _expected(m: re.Match) -> str:
    want, got = m.group(1), m.group(2)
    if want == "EOF":
        return f"多余的{_token(got)}"
    if got == "EOF":
        return f"缺少{_token(want)}"
    return f"应为{_token(want)}，却遇到{_token(got)}"


# (KaTeX's reason, its Chinese): a pattern over the whole reason, and a
# replacement template or a function of the match.
_REASONS: list[tuple[re.Pattern, object]] = [
    (r"Undefined control sequence: (.+)", r"未定义的命令：\1"),
    (r"Expected '(.+)', got '(.+)'", _expected),
    (r"Double superscript", "重复的上标：一个符号只能有一个 ^，多层请用 {} 分组"),
    (r"Double subscript", "重复的下标：一个符号只能有一个 _，多层请用 {} 分组"),
    (r"Unknown column alignment: (.+)", r"未知的列对齐方式：\1（应为 l、c 或 r）"),
    (r"No such environment: (.+)", r"没有这个环境：\1"),
    (r"Missing \$ inserted", "缺少 $"),
    (r"Expected group after '(.+)'", r"“\1”之后缺少内容"),
    (r"Expected group as argument to '(.+)'", r"“\1”缺少参数"),
    (r"Expected group as (.+)", r"缺少\1"),
    (
        r"Unexpected end of input in a macro argument, expected '(.+)'",
        r"命令的参数没有结束，缺少“\1”",
    ),
    (
        r"Mismatch: (\\begin\{.+\}) matched by (\\end\{.+\})",
        r"环境不匹配：\1 以 \2 结束",
    ),
    (r"Can't use function '(.+)' in math mode", r"不能在公式中使用“\1”"),
    (r"Can't use function '(.+)' in text mode", r"不能在文本中使用“\1”"),
    (r"Expected & or \\\\ or \\cr or \\end", r"缺少 &、\\\\、\\cr 或 \\end"),
    (r"Expected \\\\ or \\cr or \\end", r"缺少 \\\\、\\cr 或 \\end"),
    (r"Extra }", "多余的“}”"),
    (r"Extra (.+)", r"多余的“\1”"),
    (r"Missing a (.+)", r"缺少\1"),
    (r"Invalid delimiter '(.+)' after '(.+)'", r"“\2”之后的定界符“\1”无效"),
    (r"Invalid delimiter type '(.+)'", r"无效的定界符类型“\1”"),
    (r"Invalid color: '(.+)'", r"无效的颜色：“\1”"),
    (r"Invalid size: '(.+)'", r"无效的尺寸：“\1”"),
    (r"Invalid unit: '(.+)'", r"无效的单位：“\1”"),
    (r"Unexpected character: '(.+)'", r"意外的字符：“\1”"),
    (r"Unsupported character: (.+)", r"不支持的字符：\1"),
    (r"\\tag works only in display equations", r"\\tag 只能用于独立公式"),
    (r"Multiple \\tag", r"一个公式只能有一个 \\tag"),
    (r"Limit controls must follow a math operator", "上下限控制必须跟在数学运算符之后"),
    (r"\\middle without preceding \\left", r"\\middle 之前缺少 \\left"),
    (r"Expected a macro definition", "缺少宏定义"),
    (r"Expected a control sequence", "缺少命令"),
    (
        r"\\verb ended by end of line instead of matching delimiter",
        r"\\verb 没有遇到结束分隔符就到了行尾",
    ),
    (
        r"Too many expansions: infinite loop or need to increase maxExpand setting",
        "宏展开次数过多（可能是无限循环）",
    ),
    (r"Too many tab characters: &", "“&”太多：列数超过了环境允许的数量"),
    (r"\{subarray\} can contain only one column", "{subarray} 只能有一列"),
    (r"Expected l or c or r", "应为 l、c 或 r"),
    (r"Use of the macro doesn't match its definition", "宏的用法与定义不符"),
]
_REASONS = [(re.compile(p, re.S), r) for p, r in _REASONS]


def _reason(reason: str) -> str:
    for pattern, replacement in _REASONS:
        match = pattern.fullmatch(reason)
        if match:
            if callable(replacement):
                return replacement(match)
            return match.expand(replacement)
    return reason


# The renderer's own refusals (rendering/math.py): the bounds on one formula.
_BOUNDS: list[tuple[re.Pattern, str]] = [
    (
        r"Formula too large: its output would exceed (.+)",
        r"公式展开后过大（超过 \1），请简化宏定义。",
    ),
    (
        r"Formula too large: it expands to more than (.+) parts",
        r"公式展开后过大（超过 \1 个元素），请简化宏定义。",
    ),
    (
        r"KaTeX took longer than (.+) s on this formula",
        r"公式排版超时（超过 \1 秒），请简化公式。",
    ),
    (
        r"Formula is too long \((.+) characters; the limit is (.+)\)",
        r"公式太长（\1 个字符，上限 \2），请拆分。",
    ),
]
_BOUNDS = [(re.compile(p, re.S), r) for p, r in _BOUNDS]


def chinese_math_error(message: str) -> str:
    """Return KaTeX's ``message`` in Chinese, keeping position and token.

    A message that is not a KaTeX parse error, or whose reason is not known
    here, is returned with only what is known translated.
    """
    for pattern, replacement in _BOUNDS:
        if match := pattern.fullmatch(message):
            return match.expand(replacement)
    if not message.startswith(_PREFIX):
        return message
    rest = message[len(_PREFIX) :]
    match = _WHERE.fullmatch(rest)
    if match is None:
        return "公式错误：" + _reason(rest)
    reason, position, end, context = match.group("reason", "pos", "end", "context")
    parts = ["公式错误：", _reason(reason)]
    if position is not None:
        parts.append(f"（第 {position} 个字符处）")
    elif end:
        parts.append("（在公式末尾）")
    if context:
        parts.append(f"：{context}")
    return "".join(parts)


def chinese_reason(message: str) -> str:
    """Return only the reason of KaTeX's ``message``, in Chinese where known.

    For the live preview, which shows the position itself: the prefix and
    KaTeX's "at position N: …" are left out.
    """
    rest = message.removeprefix(_PREFIX)
    match = _WHERE.fullmatch(rest)
    return _reason(match.group("reason") if match else rest)
