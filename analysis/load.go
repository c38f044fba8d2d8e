package analysis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Load gathers a finished experiment from the results store: its spec, its
// result, every record of its runs, and each stream's environment.
func Load(ctx context.Context, store results.Store, name string) (Input, error) {
	var in Input
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return in, err
	}
	found := false
	in.Settings = map[string]settings.Settings{}
	for _, r := range runs {
		switch {
		case r.Run == name && r.Kind == "experiment":
			if err := json.Unmarshal(r.Spec, &in.Spec); err != nil {
				return in, fmt.Errorf("experiment %s: %w", name, err)
			}
			found = true
		case r.Kind == string(contract.KindStream):
			var s contract.StreamSpec
			if err := json.Unmarshal(r.Spec, &s); err != nil {
				return in, fmt.Errorf("run %s: stored spec: %w", r.Run, err)
			}
			in.Settings[r.Run] = s.Settings.OrDefault()
		}
	}
	if !found {
		return in, fmt.Errorf("experiment %q is not in the results store", name)
	}
	raw, err := store.RunResult(ctx, name)
	if errors.Is(err, results.ErrNotFound) {
		return in, fmt.Errorf("experiment %s has not finished (see clinevo experiment status %s)", name, name)
	}
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal(raw, &in.Result); err != nil {
		return in, fmt.Errorf("experiment %s: %w", name, err)
	}
	all, err := store.Records(ctx, "")
	if err != nil {
		return in, err
	}
	in.Records = map[string][]results.Record{}
	for _, r := range all {
		if strings.HasPrefix(r.Run, name+"-") {
			in.Records[r.Run] = append(in.Records[r.Run], r)
		}
	}
	return in, nil
}

// StoreTraces reads episode traces from the results store for Write.
func StoreTraces(ctx context.Context, store results.Episodes) TraceOf {
	return func(id string) (clinic.Trace, error) {
		_, t, err := store.RecordTrace(ctx, id)
		return t, err
	}
}
