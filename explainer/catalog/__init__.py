"""The catalog: what a measure and an NDCG convention are, each declared once.

``measures`` holds one row per measure (its names, ours and the tools', the question it answers,
its blind spot, its cutoffs, and the functions that compute it), ``conventions`` one row per way
of computing NDCG, ``grades`` the grades the figures offer. Everything above reads them: the
figures, the story, the workbench and the evaluation. The catalog imports nothing of the
explainer's, so any layer may read it.
"""
