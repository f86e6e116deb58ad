"""``kubesched sweep``: a matrix of inputs, profiles (with grids of plugin args), seeds and repetitions, each cell
one simulation whose run metrics become one row of a Parquet file; cells run on local processes or on a Dask
distributed cluster, and a stopped sweep resumes (docs/sweep.md)."""
