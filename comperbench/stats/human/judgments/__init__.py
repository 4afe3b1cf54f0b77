"""What do human labels, ratings and selections of systems say? Rates per system, agreement per
aspect, issue detection, predictive validity."""
