# Totals of a claude-jsonl dataset's requests table (and calls per tool, sessions), read by Apache Spark in local mode as the
# files are (no schema given, partition discovery for day=...). Prints one JSON line.
import json
import sys

from pyspark.sql import SparkSession, functions as F

root = sys.argv[1]
spark = (
    SparkSession.builder.master("local[1]")
    .appName("claude-jsonl-dataset-test")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.host", "127.0.0.1")
    .config("spark.driver.bindAddress", "127.0.0.1")
    .config("spark.sql.session.timeZone", "UTC")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
df = spark.read.parquet(root + "/requests")
row = df.agg(
    F.count("*").alias("requests"),
    F.sum("input_tokens").alias("inputTokens"),
    F.sum("output_tokens").alias("outputTokens"),
    F.sum("cache_creation_input_tokens").alias("cacheCreationInputTokens"),
    F.sum("cache_read_input_tokens").alias("cacheReadInputTokens"),
    F.sum("cost_usd").alias("costUsd"),
    F.countDistinct("machine").alias("machines"),
    F.countDistinct("day").alias("days"),
).collect()[0]
by_machine = {r["machine"]: r["n"] for r in df.groupBy("machine").agg(F.count("*").alias("n")).collect()}
tools = {r["tool"]: r["n"] for r in spark.read.parquet(root + "/tool_calls").groupBy("tool").agg(F.count("*").alias("n")).collect()}
sessions = spark.read.parquet(root + "/sessions").count()
print(json.dumps({**row.asDict(), "byMachine": by_machine, "tools": tools, "sessions": sessions}))
spark.stop()
