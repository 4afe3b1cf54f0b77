"""What the metrics say of themselves: `MetricInfo`, the papers they cite, and the metric cards
and table made from them."""
