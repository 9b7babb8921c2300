/* test_sql_label.c - query texts with constants as $N
 * (user/source/probes/sql_label.c).  The expected forms are what
 * pg_stat_statements of PostgreSQL 15 shows for the same statements (its
 * normalized query text; tests/integration/mark_postgres.sh checks pgbench's
 * and its own queries against a running server's pg_stat_statements). */
#include <string.h>

#include "source/probes/sql_label.h"
#include "test.h"

static const char *norm(const char *q)
{
	static char out[160];

	sql_label_normalize(q, strlen(q), out, sizeof(out));
	return out;
}

TEST(numbers_and_strings_become_parameters)
{
	CHECK_STR(norm("SELECT abalance FROM pgbench_accounts WHERE aid = 871236;"),
		  "SELECT abalance FROM pgbench_accounts WHERE aid = $1");
	CHECK_STR(norm("UPDATE pgbench_accounts SET abalance = abalance + -4321 WHERE aid = 12;"),
		  "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2");
	CHECK_STR(norm("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES "
		       "(3, 1, 55, 2770, CURRENT_TIMESTAMP);"),
		  "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES "
		  "($1, $2, $3, $4, CURRENT_TIMESTAMP)");
	CHECK_STR(norm("SELECT count(*) FROM big WHERE pad <> 'y'"),
		  "SELECT count(*) FROM big WHERE pad <> $1");
	CHECK_STR(norm("SELECT 40 + 2"), "SELECT $1 + $2");
	CHECK_STR(norm("SELECT pg_sleep(0.3)"), "SELECT pg_sleep($1)");
	CHECK_STR(norm("SELECT 1.5e3, .5, 7E-2, 'it''s', E'a\\'b', x'1F', B'101'"),
		  "SELECT $1, $2, $3, $4, $5, $6, $7");
	CHECK_STR(norm("SELECT $$ a 'b' $$, $q$x$q$ || 'c'"), "SELECT $1, $2 || $3");
	CHECK_STR(norm("SELECT interval '1 day', 'a'::text"), "SELECT interval $1, $2::text");
}

TEST(minus_sign_only_where_unary)
{
	CHECK_STR(norm("SELECT -1"), "SELECT $1");
	CHECK_STR(norm("SELECT a - 1, a-1, (-2), f(- 3)"), "SELECT a - $1, a-$2, ($3), f($4)");
	CHECK_STR(norm("SELECT x FROM t WHERE y = -7 AND z < - 8"),
		  "SELECT x FROM t WHERE y = $1 AND z < $2");
	CHECK_STR(norm("SELECT t.c -1 FROM t"), "SELECT t.c -$1 FROM t");
}

TEST(identifiers_comments_and_parameters_kept)
{
	CHECK_STR(norm("SELECT \"col1\", t2.c3, \"a\"\"9\" FROM t4 -- 5 rows\n"),
		  "SELECT \"col1\", t2.c3, \"a\"\"9\" FROM t4 -- 5 rows");
	CHECK_STR(norm("SELECT /* 1 /* 2 */ 3 */ 4"), "SELECT /* 1 /* 2 */ 3 */ $1");
	/* numbering continues after the query's own parameters */
	CHECK_STR(norm("SELECT $2 + 10, $1"), "SELECT $2 + $3, $1");
	CHECK_STR(norm("SELECT a1b, _x9 FROM u$1"), "SELECT a1b, _x9 FROM u$1");
}

TEST(cut_texts_and_small_buffers)
{
	char out[8];

	/* a label cut inside a literal ends with its parameter */
	CHECK_STR(norm("SELECT 'unterminated"), "SELECT $1");
	CHECK_STR(norm("SELECT $tag$ never closed"), "SELECT $1");
	CHECK_STR(norm(""), "");
	CHECK_STR(norm(" ;; "), "");
	/* cut at 7 bytes, the trailing space dropped */
	CHECK_EQ_U64(sql_label_normalize("SELECT 123456", 13, out, sizeof(out)), 6);
	CHECK_STR(out, "SELECT");
	CHECK_EQ_U64(sql_label_normalize("SELECT 1", 8, out, 1), 0);
	CHECK_STR(out, "");
	/* not NUL-terminated input: only len bytes are read */
	CHECK_STR((sql_label_normalize("WHERE a = 12xyz", 12, out, sizeof(out)), out), "WHERE a");
}

int main(void)
{
	return test_main();
}
