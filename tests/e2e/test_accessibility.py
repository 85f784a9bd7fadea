"""axe-core in a real Chromium: no serious or critical violations on any page type.

Every violation, of any impact, is also written to `test-artifacts/axe/` as JSON
(rule, impact, selectors) for the page authors.
"""

import json

import pytest

from tests.e2e.ci import ARTIFACTS, ROOT, require
from tests.e2e.pages import page_params

pytestmark = pytest.mark.e2e

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}


@pytest.fixture(scope="package")
def axe_script():
    require(AXE.exists(), f"{AXE.relative_to(ROOT)} is missing: run `make install`")
    folder = ARTIFACTS / "axe"
    folder.mkdir(parents=True, exist_ok=True)
    return AXE, folder


def summarize(violation):
    nodes = ", ".join(
        " ".join(node["target"]) if isinstance(node["target"], list) else node["target"]
        for node in violation["nodes"][:5]
    )
    more = len(violation["nodes"]) - 5
    return (
        f"{violation['impact']}: {violation['id']} ({violation['help']}) at {nodes}"
        + (f" and {more} more" if more > 0 else "")
    )


@pytest.mark.parametrize("scheme", ("light", "dark"))
@pytest.mark.parametrize("demo_page", page_params())
def test_no_serious_accessibility_violations(open_page, axe_script, demo_page, scheme):
    axe, folder = axe_script
    # axe goes in as an inline script: the site's policy would refuse it.
    page, _ = open_page(demo_page, color_scheme=scheme, bypass_csp=True)
    page.add_script_tag(path=str(axe))

    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    violations = results["violations"]
    (folder / f"{demo_page.name}-{scheme}.json").write_text(
        json.dumps(
            [
                {
                    "id": v["id"],
                    "impact": v["impact"],
                    "help": v["help"],
                    "nodes": [
                        {"target": node["target"], "summary": node["failureSummary"]}
                        for node in v["nodes"]
                    ],
                }
                for v in violations
            ],
            ensure_ascii=False,
            indent=2,
        )
    )
    for violation in violations:
        if violation["impact"] not in BLOCKING:
            print(summarize(violation))  # noqa: T201 - shown with -rP

    assert [summarize(v) for v in violations if v["impact"] in BLOCKING] == []
