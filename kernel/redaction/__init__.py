"""The recognisers behind ``kernel.privacy.redact``: one module per family of secret forms (issue 36).

``recognisers_in_order`` lists them in the order they are applied; ``recogniser`` says what each one is;
``context_rules`` compiles the rules that read where a value stands. Plain modules: regular expressions and
the checks that keep a match which is no secret after all.
"""
