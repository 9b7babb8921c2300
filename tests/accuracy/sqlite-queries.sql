-- accuracy fixture "sqlite3": a real program running queries (docs/accuracy.md).
-- A table of 4,000 rows built in memory, an index, then a scan with GROUP
-- BY, a sort, an index lookup loop and a self-join: the page cache, the
-- sorter and the B-tree pages each take their turn.
PRAGMA cache_size = -16384;
CREATE TABLE t(k INTEGER PRIMARY KEY, g INTEGER, v TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000)
INSERT INTO t SELECT i, (i * 7919) % 97, printf('%08x-%d', (i * 2654435761) % 4294967296, i) FROM c;
CREATE INDEX t_g ON t(g);
SELECT g, count(*), sum(length(v)) FROM t GROUP BY g ORDER BY g LIMIT 3;
SELECT v FROM t ORDER BY v DESC LIMIT 3;
SELECT count(*) FROM t AS a JOIN t AS b ON b.k = (a.k * 31) % 4000 + 1 WHERE a.g < 10;
SELECT sum(k) FROM t WHERE g IN (3, 17, 42, 77);
