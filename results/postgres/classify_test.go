package postgres

import (
	"database/sql/driver"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/fault"
)

// TestClassify: what database/sql and the server say is classified as a
// worker should treat it: waited out, or not.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want fault.Class
	}{
		// database/sql gives up on connections that broke before the
		// statement was sent (the server went away): waited out.
		{"bad connection on every try", fmt.Errorf("results: put run x: %w", driver.ErrBadConn), fault.Unavailable},
		{"server shutting down", &pgconn.PgError{Code: "57P01"}, fault.Unavailable},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, fault.Schema},
		{"missing privilege", &pgconn.PgError{Code: "42501"}, fault.Unauthorized},
		{"read-only server", &pgconn.PgError{Code: "25006"}, fault.Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, fault.Of(classify(c.err)).Class)
		})
	}
}
