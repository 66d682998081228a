"""The clinician's web app (``clinrag web``): sign-in at one's hospital, streamed answers, evidence, history."""
