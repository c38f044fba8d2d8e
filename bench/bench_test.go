package bench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/settings"
)

// toy is the smallest benchmark: it only has to be registrable.
type toy struct{ name string }

func (b toy) Name() string { return b.name }
func (toy) Actions(settings.Settings) []clinic.ActionKind {
	return []clinic.ActionKind{clinic.Finalize}
}
func (toy) Validate(settings.Settings) error { return nil }
func (toy) ValidateCase(*clinic.Case) error  { return nil }
func (toy) Start(clinic.Case, settings.Settings, episode.Roles, []clinic.Event) (episode.Env, error) {
	return nil, nil
}
func (toy) Score(context.Context, bench.ScoreInput) (clinic.Scores, error) {
	return clinic.Scores{}, nil
}
func (toy) Metrics() []bench.Metric { return nil }

// other is another type under a name toy may take.
type other struct{ toy }

func TestRegistry(t *testing.T) {
	require.NoError(t, bench.Register(toy{"toy-a"}))
	require.NoError(t, bench.Register(toy{"toy-a"}), "registering the same benchmark again is a no-op")
	require.ErrorContains(t, bench.Register(other{toy{"toy-a"}}), `name "toy-a" is taken`)
	require.ErrorContains(t, bench.Register(toy{"Toy"}), "lower-case")
	require.ErrorContains(t, bench.Register(toy{""}), "non-empty")

	b, err := bench.Get("toy-a")
	require.NoError(t, err)
	require.Equal(t, "toy-a", b.Name())
	s := settings.Default()
	s.Profile = "nowhere"
	_, err = bench.Of(s)
	require.ErrorContains(t, err, `profile "nowhere" is not available, want one of`)
	require.ErrorContains(t, err, "toy-a")
	require.Contains(t, bench.Names(), "toy-a")
	require.Equal(t, "-", bench.Budgets(b, s), "a benchmark without budgets shows none")
}
