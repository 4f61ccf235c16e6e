"""Sentences in the learner's language (de, pt, es; en for scripts and tests): the helpers' messages and the
checker's explanations. Pure data and lookups: may import only `reservation_lab.errors` and `paths`, so that
every other layer can use it.
"""
