"""The official Python client (elasticsearch-py 7.17, Debian's python3-elasticsearch) calling the endpoints
real tools use beyond the basics. Prints one JSON object of results for test/es/python-client.test.ts."""
import json
import os
import sys

from elasticsearch import Elasticsearch, helpers

es = Elasticsearch([os.environ["ES_URL"]], http_compress=True)
out = {}
out["ping"] = es.ping()
out["info"] = es.info()["version"]["number"]
es.indices.create(index="py", body={"mappings": {"_doc": {"properties": {"n": {"type": "long"}, "t": {"type": "keyword"}}}}}, include_type_name=True)
ok, errors = helpers.bulk(es, ({"_index": "py", "_type": "_doc", "_id": str(i), "n": i, "t": "even" if i % 2 == 0 else "odd"} for i in range(50)), refresh=True)
out["bulk_ok"] = ok
out["mget"] = [d["found"] for d in es.mget(index="py", doc_type="_doc", body={"ids": ["1", "2", "99"]})["docs"]]
out["update_by_query"] = es.update_by_query(index="py", doc_type="_doc", body={"query": {"term": {"t": "odd"}}, "script": {"source": "ctx._source.n += 1000"}}, refresh=True)["updated"]
out["delete_by_query"] = es.delete_by_query(index="py", doc_type="_doc", body={"query": {"range": {"n": {"gte": 1000}}}}, refresh=True)["deleted"]
out["count_after"] = es.count(index="py")["count"]
es.ingest.put_pipeline(id="py-pipe", body={"processors": [{"set": {"field": "via", "value": "python"}}]})
out["simulate"] = es.ingest.simulate(body={"pipeline": {"processors": [{"uppercase": {"field": "a"}}]}, "docs": [{"_source": {"a": "x"}}]})["docs"][0]["doc"]["_source"]
out["reindex"] = es.reindex(body={"source": {"index": "py"}, "dest": {"index": "py2", "pipeline": "py-pipe"}}, refresh=True)["created"]
out["via"] = es.get(index="py2", doc_type="_doc", id="0")["_source"]["via"]
out["field_caps"] = es.field_caps(index="py", fields="n,t")["fields"]
out["settings"] = es.cluster.put_settings(body={"transient": {"action.auto_create_index": "true"}})["acknowledged"]
out["close"] = es.indices.close(index="py2")["acknowledged"]
out["open"] = es.indices.open(index="py2")["acknowledged"]
out["explain"] = es.explain(index="py", doc_type="_doc", id="0", body={"query": {"term": {"t": "even"}}})["matched"]
out["validate"] = es.indices.validate_query(index="py", body={"query": {"term": {"n": "x"}}})["valid"]
out["nodes_stats"] = len(es.nodes.stats(metric="jvm,fs")["nodes"])
out["stats_docs"] = es.indices.stats(index="py", metric="docs")["_all"]["primaries"]["docs"]["count"]
# composite paging as clients walk it: after_key until an empty page
pages, after = [], None
while True:
    comp = {"size": 1, "sources": [{"t": {"terms": {"field": "t"}}}]}
    if after:
        comp["after"] = after
    agg = es.search(index="py", body={"size": 0, "aggs": {"c": {"composite": comp}}})["aggregations"]["c"]
    if not agg["buckets"]:
        break
    pages += [[b["key"]["t"], b["doc_count"]] for b in agg["buckets"]]
    after = agg["after_key"]
out["composite_pages"] = pages
out["collapse"] = [h["fields"]["t"] for h in es.search(index="py", body={"collapse": {"field": "t"}, "sort": [{"n": "asc"}]})["hits"]["hits"]]
out["suggest"] = es.search(index="py", suggest_field="t", suggest_text="evem", size=0)["suggest"]["t"][0]["options"][0]["text"]
json.dump(out, sys.stdout)
