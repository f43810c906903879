# %% [markdown]
# # relkit from Python: the front door
#
# A percent-format notebook (open it in Jupyter with jupytext, in VS Code or PyCharm
# as cells, or run it with plain `python docs/notebook.py`; tests/test_front_door.py
# does, with `MPLBACKEND=Agg`). It uses the sample collection shipped with relkit
# (`corpora/sample/`: 6 topics, 471 graded judgments, four runs) and only the names
# `import relkit` gives:
# `Qrels`, `Run`, `Evaluator`, `evaluate`, `parse_measure`, `compare`, `open_store`,
# `pool`, `agree`. Each is loaded on first use: `import relkit` itself imports nothing
# heavy.

# %%
import tempfile
from pathlib import Path

import relkit
from relkit.corpora.collection import open_collection

sample = open_collection("sample")          # the shipped collection, wherever installed
print(relkit.__version__, sample.root)

# %% [markdown]
# ## Qrels and runs
#
# Ids stay strings; a run is named here by its file's stem (run tags often repeat).

# %%
qrels = relkit.Qrels.read(sample.root / "qrels.txt")
runs = {path.stem: relkit.Run.read(path) for path in sample.run_paths()}
print(qrels, sorted(runs))

# %% [markdown]
# ## One run, trec_eval's numbers
#
# A result shows as one line (a small table in a notebook); `.to_dict()` gives the
# summaries, `.plot()` one measure per topic.

# %%
result = relkit.evaluate(qrels, runs["bm25"], ["AP", "nDCG@10", "P@10"])
print(result)
print(result.to_dict())
ax = result.plot("nDCG@10")
print(ax.get_title())

# %% [markdown]
# Measure names parse in every dialect: trec_eval's, ir_measures', ranx's.

# %%
print([str(m) for m in relkit.parse_measure("ndcg_cut.10")],
      [str(m) for m in relkit.parse_measure("P.5,10")])

# %% [markdown]
# Many runs on qrels prepared once, per topic as a tidy frame:

# %%
evaluator = relkit.Evaluator(qrels, ["AP", "nDCG@10"])
print(evaluator)
per_topic = evaluator.evaluate(runs["ql"])
print(per_topic.head())

# %% [markdown]
# ## Comparing systems, with a significance test
#
# Every run against the BM25 baseline: a paired t test per measure over the 6 topics,
# Holm's correction over the pairs, 95% intervals around the means (`test="randomisation"`,
# `"wilcoxon"`, `"sign"` and `"bootstrap"` are the others).

# %%
comparison = relkit.compare(qrels, runs, ["AP", "nDCG@10"], baseline="bm25", test="t",
                            ci=0.95)
print(comparison)
print(comparison.table("markdown"))
print(comparison.pairs_frame()[["measure", "a", "b", "diff", "p_adjusted", "significant"]])
ax = comparison.plot()
print(ax.get_title())

# %% [markdown]
# ## A judging project on a SQLite file
#
# `open_store` creates the database; the collection takes the sample's topics, scale and
# documents (their text is copied in, for the judging screens).

# %%
folder = tempfile.TemporaryDirectory()
db = Path(folder.name) / "project.db"
store = relkit.open_store(db)
store.create_collection("sample", sample.scale, sample.read_topics(), sample.iter_docs())
print(store.collection_name(), store.scale().name)

# %% [markdown]
# ## Pooling
#
# The depth-5 pool of the four runs, imported into the project and shared between two
# assessors, half of it judged by both (for agreement).

# %%
depth5 = relkit.pool(runs, depth=5)
print(depth5)
store.import_pool([(e.topic, e.doc) for e in depth5], name="depth5", strategy="depth")
print(store.assign(["ann", "bob"], pool="depth5", overlap=0.5))

# %% [markdown]
# The two assessors judge (here from the sample's own judgments; `bob` is stricter: he
# grades every grade-2 document 1), as `relkit judge` records it:

# %%
grades = qrels.to_dict()
for name in ("ann", "bob"):
    view = store.assessor(name)
    for topic in view.topics():
        for item in view.items(topic.key):
            grade = grades.get(item.topic, {}).get(item.doc, 0)
            if name == "bob" and grade == 2:
                grade = 1
            view.record(topic=item.topic, doc=item.doc, grade=grade)
store.close()

# %% [markdown]
# ## Agreement
#
# From the database (read only): every coefficient on the graded scale and binarised at
# the scale's threshold, with bootstrap intervals.

# %%
analysis = relkit.agree(db=db, replicates=200, seed=1)
print(analysis)
print({name: round(stat.value, 3) for name, stat in analysis.binary.overall.items()
       if name in ("percent_agreement", "mean_pairwise_cohen_kappa", "gwet_ac1")})
folder.cleanup()
