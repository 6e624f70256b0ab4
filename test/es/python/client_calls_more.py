"""The official Python client (elasticsearch-py 7.17) on the endpoints issue 13 added last: term vectors, script
query and sort, sliced scrolls and `slices`, verbose pipeline simulation, the completion suggester. Prints one
JSON object of results for test/es/python-client.test.ts."""
import json
import os
import sys

from elasticsearch import Elasticsearch, helpers

es = Elasticsearch([os.environ["ES_URL"]], http_compress=True)
out = {}
es.indices.create(index="pym", include_type_name=True, body={"settings": {"number_of_shards": 2}, "mappings": {"_doc": {"properties": {
    "n": {"type": "long"}, "body": {"type": "text", "term_vector": "with_positions_offsets"}, "sug": {"type": "completion"}}}}})
helpers.bulk(es, ({"_index": "pym", "_type": "_doc", "_id": str(i), "n": i, "body": "quick fox %d" % i,
                   "sug": {"input": "item %d" % i, "weight": i}} for i in range(20)), refresh=True)
tv = es.termvectors(index="pym", doc_type="_doc", id="3", term_statistics=True)
out["termvectors"] = {t: v["term_freq"] for t, v in tv["term_vectors"]["body"]["terms"].items()}
out["termvectors_fox_df"] = tv["term_vectors"]["body"]["terms"]["fox"]["doc_freq"]
out["mtermvectors"] = [d["found"] for d in es.mtermvectors(index="pym", doc_type="_doc", body={"ids": ["1", "2", "99"]})["docs"]]
out["script_query"] = es.count(index="pym", body={"query": {"script": {"script": {"source": "doc['n'].value % params.m == 0", "params": {"m": 5}}}}})["count"]
out["script_sort"] = [h["_id"] for h in es.search(index="pym", body={"size": 3, "sort": {"_script": {"type": "number", "order": "desc",
    "script": {"source": "doc['n'].value * -1"}}}})["hits"]["hits"]]
sliced = []
for i in range(3):
    sliced += [h["_id"] for h in helpers.scan(es, index="pym", query={"slice": {"id": i, "max": 3}}, size=4)]
out["sliced_scroll"] = sorted(sliced, key=int) == [str(i) for i in range(20)]
ubq = es.update_by_query(index="pym", body={"script": {"source": "ctx._source.n += 100"}}, slices=2, refresh=True)
out["ubq_slices"] = [ubq["updated"], len(ubq["slices"])]
out["ubq_auto"] = len(es.delete_by_query(index="pym", body={"query": {"range": {"n": {"gte": 118}}}}, slices="auto", refresh=True)["slices"])
out["simulate_verbose"] = len(es.ingest.simulate(verbose=True, body={"pipeline": {"processors": [{"set": {"field": "a", "value": 1}}, {"set": {"field": "b", "value": 2}}]},
    "docs": [{"_source": {}}]})["docs"][0]["processor_results"])
out["completion"] = [o["text"] for o in es.search(index="pym", body={"size": 0, "suggest": {"s": {"prefix": "item 1", "completion": {"field": "sug", "size": 3}}}})["suggest"]["s"][0]["options"]]
json.dump(out, sys.stdout)
