"""Do the people agree? Inter-annotator agreement: Krippendorff's alpha, Fleiss' and Cohen's kappa."""
