"""Population questions: typed cohort queries, counted at each node under the same policies, merged at the root."""
