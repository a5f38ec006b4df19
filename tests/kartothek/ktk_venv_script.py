"""Runs inside the separate Kartothek 5.3 virtualenv (Python 3.8-3.10), never in the test process.

Reads a JSON job from stdin: ``{"store": path, "reads": [{"uuid", "table", "predicates"}],
"appends": [{"uuid", "rows": {col: [values]}, "dates": [cols]}]}``; appends first (with
Kartothek's update_dataset_from_dataframes), then prints ``[{"columns", "rows"} | {"error"}]``
for each read as JSON.
"""

import base64
import datetime
import json
import math
import sys

import numpy as np
import pandas as pd
from kartothek.io.eager import read_table, update_dataset_from_dataframes
from storefact import get_store_from_url


def plain(v):
    if v is None or v is pd.NaT:
        return None
    if isinstance(v, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (list, tuple, np.ndarray)):
        return [plain(x) for x in v]
    return v


def literal(v):
    """JSON literals; ``{"date": "YYYY-MM-DD"}`` is a datetime.date (Kartothek refuses text)."""
    if isinstance(v, dict) and "date" in v:
        return datetime.date.fromisoformat(v["date"])
    if isinstance(v, list):
        return [literal(x) for x in v]
    return v


def main():
    job = json.load(sys.stdin)
    store = get_store_from_url("hfs://" + job["store"])
    for app in job.get("appends", []):
        df = pd.DataFrame(app["rows"])
        for c in app.get("dates", []):
            df[c] = pd.to_datetime(df[c]).dt.date
        for c in app.get("timestamps", []):
            df[c] = pd.to_datetime(df[c])
        for c, t in app.get("dtypes", {}).items():
            df[c] = df[c].astype(t)
        update_dataset_from_dataframes([{"data": {app.get("table", "table"): df}}], store=store,
                                       dataset_uuid=app["uuid"], partition_on=app.get("partition_on"),
                                       secondary_indices=app.get("secondary_indices"))
    out = []
    for r in job["reads"]:
        preds = r.get("predicates")
        if preds is not None:
            preds = [[(c, op, literal(v)) for c, op, v in conj] for conj in preds]
        try:
            df = read_table(r["uuid"], store, table=r.get("table", "table"), predicates=preds,
                            dates_as_object=True)
            rows = [[plain(v) for v in row] for row in df.itertuples(index=False, name=None)]
            out.append({"columns": [str(c) for c in df.columns], "rows": rows})
        except Exception as exc:  # reported, the test decides
            out.append({"error": "%s: %s" % (type(exc).__name__, exc)})
    json.dump(out, sys.stdout)


main()
