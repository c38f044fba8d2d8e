package devserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
)

// MissingSearchAttributes lists the SearchAttributes that namespace ns of
// the frontend c talks to does not have, sorted. A workflow that sets a
// missing one fails its workflow task until it is added.
func MissingSearchAttributes(ctx context.Context, c client.Client, ns string) ([]string, error) {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("list the search attributes of namespace %s: %w", ns, err)
	}
	var missing []string
	for name := range SearchAttributes {
		if _, ok := resp.GetCustomAttributes()[name]; !ok {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing, nil
}

// AddMissingSearchAttributes adds to namespace ns the SearchAttributes it
// lacks: a data directory made by an older clinevo gets the new ones (the
// namespace, and the attributes it was created with, are made once).
func AddMissingSearchAttributes(ctx context.Context, c client.Client, ns string) error {
	missing, err := MissingSearchAttributes(ctx, c, ns)
	if err != nil || len(missing) == 0 {
		return err
	}
	add := &operatorservice.AddSearchAttributesRequest{Namespace: ns, SearchAttributes: map[string]enumspb.IndexedValueType{}}
	for _, name := range missing {
		add.SearchAttributes[name] = SearchAttributes[name]
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, add); err != nil {
		return fmt.Errorf("add search attributes %s to namespace %s: %w", strings.Join(missing, ", "), ns, err)
	}
	return nil
}

// CheckSearchAttributes refuses namespace ns when it lacks any of the
// SearchAttributes (a worker's workflows that set one would fail their
// tasks until it is added); the error says how to add them (MissingHelp).
func CheckSearchAttributes(ctx context.Context, c client.Client, ns string) error {
	missing, err := MissingSearchAttributes(ctx, c, ns)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return errors.New(MissingHelp(ns, missing))
	}
	return nil
}

// MissingHelp says how to add missing search attributes to another
// Temporal, one Temporal CLI command each.
func MissingHelp(ns string, missing []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "namespace %s lacks clinevo's search attributes %s; add them with:\n", ns, strings.Join(missing, ", "))
	for _, name := range missing {
		fmt.Fprintf(&b, "  temporal operator search-attribute create --namespace %s --name %s --type %s\n", ns, name, typeName(name))
	}
	return b.String()
}

func typeName(name string) string {
	t := SearchAttributes[name].String() // INDEXED_VALUE_TYPE_KEYWORD
	t = strings.TrimPrefix(t, "INDEXED_VALUE_TYPE_")
	return strings.ToUpper(t[:1]) + strings.ToLower(t[1:])
}
