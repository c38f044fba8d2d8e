package engine

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// Configured are the stores the configuration names: under its data
// directory, or the PostgreSQL and Qdrant it configures; readOnly opens them
// for reading (no data directory, file or collection created).
func Configured(cfg config.Config, readOnly bool) Options {
	return Options{DataDir: cfg.DataDir, MemoryDim: cfg.Memory.Dim, Embeddings: cfg.Settings.Roles["embeddings"],
		Qdrant: cfg.QdrantOptions(), Postgres: cfg.PostgresOptions(), ReadOnly: readOnly, PromptText: cfg.Telemetry.PromptText}
}

// ResultsAt says where results go, as a process announces it: the
// PostgreSQL DSN (which never holds the password) or the results.db file.
func (o Options) ResultsAt() string {
	if o.Postgres != nil {
		return "postgres " + o.Postgres.String()
	}
	return filepath.Join(o.DataDir, "results.db")
}

// WithResults runs fn with the results store o names, opened for reading
// or, without o.ReadOnly, for writing, only when it exists: in a data
// directory where nothing has run (ErrNoData) there is no run to find or
// describe, and fn gets nil.
func WithResults(ctx context.Context, o Options, fn func(results.Store) error) error {
	open := OpenResultsWriter
	if o.ReadOnly {
		open = OpenResultsReader
	}
	store, err := open(ctx, o)
	if errors.Is(err, ErrNoData) {
		return fn(nil)
	}
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store)
}

// PlayCase plays one case in process, outside any worker and store, with
// the roles of s (RolesFor) and benchmark b, as episode adhoc/<case> of run
// adhoc (`clinevo episode run`).
func PlayCase(ctx context.Context, s settings.Settings, b bench.Benchmark, cs clinic.Case, o llm.Options) (clinic.Trace, error) {
	roles, err := RolesFor(s, o)
	if err != nil {
		return clinic.Trace{}, err
	}
	d := runner.Deps{Bench: b, Roles: roles, Settings: s}
	return runner.Play(ctx, cs, d, runner.Meta{RunID: "adhoc", EpisodeID: "adhoc/" + cs.ID, Number: 1, Pass: 1})
}
