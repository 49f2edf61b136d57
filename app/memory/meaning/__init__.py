"""Meaning: a vector for each turn's card and the search by meaning. The sentence model
(encoder.py, wordpiece.py), in a process of its own (model_process.py), or a provider's
embeddings (providers.py); the `.vec` files and their stack (vectors.py), scored in int8 first
(compact.py). The model's files are in model/.
"""
