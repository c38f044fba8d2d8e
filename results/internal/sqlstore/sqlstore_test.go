package sqlstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMigrationsHaveSQLForEveryEngine: versions run 1, 2, ... with no gap,
// and every migration has SQL for both engines (a migration with its own SQL
// for one engine only would run nothing on the other).
func TestMigrationsHaveSQLForEveryEngine(t *testing.T) {
	for i, m := range migrations {
		require.Equal(t, i+1, m.version, "migration %q", m.name)
		for _, d := range []Dialect{SQLite, PostgreSQL} {
			require.NotEmpty(t, m.sqlFor(d.engine), "version %d (%s) for %s", m.version, m.name, d.engine)
		}
		require.True(t, (m.sql == "") != (m.own == nil), "version %d: either one SQL for every engine or each engine's own", m.version)
	}
}

func TestBind(t *testing.T) {
	const q = `SELECT a FROM t WHERE b >= $1 AND b < $2 AND c = $10`
	require.Equal(t, `SELECT a FROM t WHERE b >= ?1 AND b < ?2 AND c = ?10`, SQLite.bind(q))
	require.Equal(t, q, PostgreSQL.bind(q))
}
