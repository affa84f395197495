"""The search text of a task (issue 37 and 38): what retrieval searches, made from the task as typed. The
input a colon hands over is left out (handover.py), British spellings are put in American ones
(spelling.py) and literal values are replaced by the word of their kind (literals.py intent_text)."""
