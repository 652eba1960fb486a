"""The model boundary: which model a setting names, and how small models are made to call tools.

LiteLLM models with native tool-call replay, constrained calls, robust parsing of what small
models write, and the embedded in-process model (`models.embedded`).
"""
