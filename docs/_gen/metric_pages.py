"""The "Every metric" page and a card per metric, generated at build time from what each
registered metric states about itself (`comperbench.metrics.info(name)`, a `MetricInfo`), with
the renderers `comperbench card --metrics` writes the metric cards with."""

from __future__ import annotations

import mkdocs_gen_files

from comperbench.metrics import available, info
from comperbench.metrics.about.cards import metric_table_markdown, render_card

INTRO = """# Every metric

Generated from the metric registry when the site is built
(`comperbench.metrics.available()`); `comperbench.metrics.get(NAME)` builds one, and the text in
brackets of a name picks a model or variant (see [Using metrics](../metrics.md)). Each name
links to the metric's card.

"""

infos = [info(name) for name in available()]
with mkdocs_gen_files.open("metrics/list.md", "w") as out:
    out.write(INTRO + metric_table_markdown(infos, links="cards/"))
for each in infos:
    with mkdocs_gen_files.open(f"metrics/cards/{each.name}.md", "w") as out:
        out.write(render_card(each))
