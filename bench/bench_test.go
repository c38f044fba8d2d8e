package bench_test

import (
	"context"
	"slices"
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

func TestSet(t *testing.T) {
	set, err := bench.NewSet(toy{"toy-b"}, toy{"toy-a"})
	require.NoError(t, err)
	require.Equal(t, []string{"toy-a", "toy-b"}, set.Names(), "in name order")
	_, err = bench.NewSet(toy{"toy-a"}, other{toy{"toy-a"}})
	require.ErrorContains(t, err, `name "toy-a" is taken`)
	_, err = bench.NewSet(toy{"Toy"})
	require.ErrorContains(t, err, "lower-case")
	_, err = bench.NewSet(toy{""})
	require.ErrorContains(t, err, "non-empty")

	b, err := set.Get("toy-a")
	require.NoError(t, err)
	require.Equal(t, "toy-a", b.Name())
	s := settings.Default()
	s.Benchmark = "nowhere"
	_, err = set.Of(s)
	require.ErrorContains(t, err, `profile "nowhere" is not available, want one of toy-a, toy-b`)
	_, err = bench.Set{}.Of(s)
	require.ErrorContains(t, err, "plays no benchmark")
	require.Equal(t, "-", bench.Budgets(b, s), "a benchmark without budgets shows none")
}

// gated is a benchmark with a role of its own.
type gated struct{ toy }

func (gated) Roles() []string { return []string{"gatekeeper", "doctor"} }

// TestRunRoles: a run's roles are the shared ones and its benchmark's own,
// once each; the set's are every benchmark's, and only those validate.
func TestRunRoles(t *testing.T) {
	require.Equal(t, settings.RoleNames, bench.RunRoles(toy{"toy-a"}))
	require.Equal(t, append(slices.Clone(settings.RoleNames), "gatekeeper"), bench.RunRoles(gated{toy{"toy-g"}}))
	set, err := bench.NewSet(toy{"toy-a"}, gated{toy{"toy-g"}})
	require.NoError(t, err)
	require.Contains(t, set.Roles(), "gatekeeper")
	def := set.DefaultSettings()
	require.Equal(t, settings.DefaultRole("gatekeeper"), def.Roles["gatekeeper"], "every role of the set has its default")
	def.Benchmark = "toy-a"
	require.NoError(t, set.ValidateSettings(def), "another benchmark's role at its default")
	def.Roles["gatekeper"] = settings.DefaultRole("gatekeper")
	require.ErrorContains(t, set.ValidateSettings(def), "roles.gatekeper: unknown role, want one of doctor, ")
}

// keyed is a benchmark with episode keys of its own.
type keyed struct{ toy }

type keyedEpisode struct {
	Tags  []string `json:"tags"`
	Limit int      `json:"limit"`
}

func (keyed) EpisodeDefaults() any { return keyedEpisode{Limit: 4} }

// TestEpisodeKeyOwnership checks the episode keys of a run: a key no
// benchmark has is unknown; another benchmark's key must keep that
// benchmark's default, where an empty list is the same as none (a
// configuration file writes "tags: []").
func TestEpisodeKeyOwnership(t *testing.T) {
	set, err := bench.NewSet(keyed{toy{"toy-keyed"}}, toy{"toy-plain"})
	require.NoError(t, err)
	run := func(profile string, ext map[string]any) error {
		s := settings.Default()
		s.Benchmark, s.Episode.Ext = profile, ext
		return set.ValidateSettings(s)
	}
	require.NoError(t, run("toy-keyed", map[string]any{"tags": []any{"a"}, "limit": 9}))
	for _, v := range []any{nil, []any{}} {
		require.NoError(t, run("toy-plain", map[string]any{"tags": v, "limit": 4}), "%v is tags' default", v)
	}
	require.ErrorContains(t, run("toy-plain", map[string]any{"tags": []any{"a"}}), "episode.tags is a setting of benchmark toy-keyed; this run's benchmark is toy-plain, which would ignore it")
	require.ErrorContains(t, run("toy-plain", map[string]any{"limit": 5}), "episode.limit is a setting of benchmark toy-keyed")
	require.ErrorContains(t, run("toy-plain", map[string]any{"limt": 5}), "episode.limt: unknown settings key (known: ")
}

// retiring is a benchmark that retired an episode key.
type retiring struct{ keyed }

func (retiring) RetiredEpisodeKeys() []string { return []string{"mode"} }

// TestRetiredEpisodeKeyIsAccepted: settings an older build recorded carry a
// key a benchmark has since retired; every run's settings accept it (a
// stream checks them again at each stage, and refused them at the first
// stage after an upgrade), while a key nobody retired stays unknown.
func TestRetiredEpisodeKeyIsAccepted(t *testing.T) {
	set, err := bench.NewSet(retiring{keyed{toy{"toy-retiring"}}}, toy{"toy-plain"})
	require.NoError(t, err)
	for _, b := range []string{"toy-retiring", "toy-plain"} {
		s := settings.Default()
		s.Benchmark, s.Episode.Ext = b, map[string]any{"mode": "direct"}
		require.NoError(t, set.ValidateSettings(s), b)
		s.Episode.Ext = map[string]any{"mood": "direct"}
		require.ErrorContains(t, set.ValidateSettings(s), "episode.mood: unknown settings key", b)
	}
}
