"""Words: the word index of all logs and the search by words. How text becomes words
(tokens.py) and a query (terms.py); each event's document (documents.py), folded here or in the
helper process (sidecar.py) and added (adding.py) to the tantivy index (index.py), kept current
by the change journal (changes.py); the search, ranked by BM25 and grouped by turn (search.py,
matching.py).
"""
