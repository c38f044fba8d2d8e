package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/llm"
)

func (a *app) rolesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "roles", Short: "Check and describe the model roles"}
	var asJSON bool
	check := &cobra.Command{
		Use:   "check [SPEC]",
		Short: "Preflight every model role (of every condition of SPEC, else of the configuration): endpoint, key, model, reply format, latency",
		Long: "Reaches each model role's endpoint, authenticates, looks its model up and sends one tiny request in the role's\n" +
			"reply format (JSON, tags or function calls), read by the role's parser. Prints no prompt and no key.\n" +
			"Exits with an error when a role fails.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := a.set.Of(a.cfg.Settings)
			if err != nil {
				return err
			}
			conds := []llm.Condition{{Name: "config", Settings: a.cfg.Settings, Bench: b}}
			if len(args) == 1 {
				if conds, err = a.conditions(args[0]); err != nil {
					return err
				}
			}
			return a.printRoleChecks(cmd, conds, asJSON)
		},
	}
	check.Flags().BoolVar(&asJSON, "json", false, "print the checks as JSON")
	cmd.AddCommand(check)
	return cmd
}

// conditions are the conditions of an experiment spec as checks read them:
// each with its settings and benchmark.
func (a *app) conditions(path string) ([]llm.Condition, error) {
	spec, err := a.loadExperiment(path)
	if err != nil {
		return nil, err
	}
	var out []llm.Condition
	for i, c := range spec.Conditions {
		s, err := spec.SettingsOf(i)
		if err != nil {
			return nil, err
		}
		b, err := a.set.Of(s)
		if err != nil {
			return nil, fmt.Errorf("conditions[%d] (%s): %w", i, c.Name, err)
		}
		out = append(out, llm.Condition{Name: c.Name, Settings: s, Bench: b})
	}
	return out, nil
}

// printRoleChecks checks the roles and prints the verdicts; a failed role is
// the command's error.
func (a *app) printRoleChecks(cmd *cobra.Command, conds []llm.Condition, asJSON bool) error {
	checks := llm.CheckConditions(cmd.Context(), conds)
	if asJSON {
		if err := printJSON(cmd, checks); err != nil {
			return err
		}
	} else if err := writeRoleChecks(cmd.OutOrStdout(), checks); err != nil {
		return err
	}
	failed := 0
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("roles check: %d of %d model roles failed", failed, len(checks))
	}
	return nil
}

func writeRoleChecks(w io.Writer, checks []llm.ConditionCheck) error {
	if len(checks) == 0 {
		_, err := fmt.Fprintln(w, "no model roles: every role is built in")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CONDITIONS\tROLE\tPROVIDER\tMODEL\tFORMAT\tREACHABLE\tAUTH\tMODEL FOUND\tJSON MODE\tTOOLS\tPARSED\tLATENCY\tVERDICT")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0fms\t%s\n", strings.Join(c.Conditions, ","), c.Role, c.Provider, c.Model, c.Format,
			c.Reachable, c.Auth, c.ModelFound, c.JSONMode, c.Tools, c.FormatOK, c.LatencyMS, c.Verdict)
	}
	return tw.Flush()
}

// addCheckRoles gives experiment validate its --check-roles flag: after the
// spec validates, its model roles are checked as roles check does.
func (a *app) addCheckRoles(root *cobra.Command) {
	validate, _, err := root.Find([]string{"experiment", "validate"})
	if err != nil || validate.Name() != "validate" {
		return // no experiment validate: nothing to extend
	}
	var checkRoles bool
	validate.Flags().BoolVar(&checkRoles, "check-roles", false, "also preflight every model role of every condition (roles check)")
	inner := validate.RunE
	validate.RunE = func(cmd *cobra.Command, args []string) error {
		if err := inner(cmd, args); err != nil || !checkRoles {
			return err
		}
		conds, err := a.conditions(args[0])
		if err != nil {
			return err
		}
		return a.printRoleChecks(cmd, conds, false)
	}
}
