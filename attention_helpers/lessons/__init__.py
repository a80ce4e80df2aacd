"""One lesson's helpers, one module per topic, named for what it teaches; each uses the core (`masking`, `layers`,
`transformer`, `plotting`) and, for its pictures, `attention_helpers.explore`:

- `kernel_regression` (00): Nadaraya-Watson kernel regression, attention before it had the name;
- `fill_values` (01): what a fill value does to a masked softmax, per dtype, with and without an empty row;
- `landscape` (02): the additive score landscape over a plane of 2-D keys, beside the dot product's;
- `saturation` (03): softmax saturation as `d` grows, and what scaling and a temperature do;
- `dates`, `dates_train` (06): the date translator, its training, its committed weights (`data/`) and measures;
- `optim` (06, 10): a small Adam that starts fast;
- `cost` (07): time and memory of attention as sequences grow;
- `efficient` (08): attention without the L x L matrix (online-softmax partials, tiles, band masks);
- `generation` (09): a KV cache, grouped-query attention and rotary position embeddings;
- `induction` (10): a two-layer attention-only transformer and its induction head.
"""

__all__: list[str] = []  # a folder of modules: import them by name
