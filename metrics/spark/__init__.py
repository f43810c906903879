"""relkit on Apache Spark: the same numbers as the single-machine path, computed on a cluster.

Optional: ``pip install 'relkit[spark]'`` (PySpark) and a Java runtime. Nothing here is
imported unless ``--engine spark`` (or ``engine="spark"``) is asked for.
"""
