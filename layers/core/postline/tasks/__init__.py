"""The Fargate tasks' entry points, as functions/ holds the Lambdas': `python -m postline.tasks.relay`
(the SMTP relay) and `python -m postline.tasks.submission` (SMTP submission). Each assembles its
process from the wiring roots, so the task packages (relay/, smtp/) sit below wiring on the ladder."""
