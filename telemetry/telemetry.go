// Package telemetry sets up OpenTelemetry for clinevo: traces of workflows and
// activities through the Temporal SDK's tracing interceptor, spans of model
// calls and memory queries, and metrics, exported to stdout or OTLP. Off, it
// installs nothing and the global no-op providers cost nothing.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Config chooses the exporter.
type Config struct {
	Exporter     string `mapstructure:"exporter"`      // off | stdout | otlp
	OTLPEndpoint string `mapstructure:"otlp_endpoint"` // host:port of an OTLP/gRPC collector
	Insecure     bool   `mapstructure:"insecure"`      // plaintext OTLP
	File         string `mapstructure:"file"`          // stdout exporter: write here instead of standard output
	PromptText   bool   `mapstructure:"prompt_text"`   // record prompt text on model-call spans (llm.Options.RecordPrompts)
}

// Validate names a bad field.
func (c Config) Validate() error {
	switch c.Exporter {
	case "", "off", "stdout":
	case "otlp":
		if c.OTLPEndpoint == "" {
			return errors.New("telemetry.otlp_endpoint is required for the otlp exporter")
		}
	default:
		return fmt.Errorf("telemetry.exporter %q, want off, stdout or otlp", c.Exporter)
	}
	return nil
}

// Telemetry holds the installed providers.
type Telemetry struct {
	Tracer  *sdktrace.TracerProvider
	Meter   *sdkmetric.MeterProvider
	closers []func(context.Context) error
}

// Setup installs global trace and meter providers for the exporter. With the
// exporter off it returns a Telemetry that does nothing.
func Setup(ctx context.Context, cfg Config, service string) (*Telemetry, error) {
	t := &Telemetry{}
	if cfg.Exporter == "" || cfg.Exporter == "off" {
		return t, nil
	}
	res := resource.NewSchemaless(semconv.ServiceName(service))
	var (
		spans   sdktrace.SpanExporter
		metrics sdkmetric.Exporter
		err     error
	)
	switch cfg.Exporter {
	case "stdout":
		var w io.Writer = os.Stdout
		if cfg.File != "" {
			f, err := os.Create(cfg.File)
			if err != nil {
				return nil, fmt.Errorf("telemetry: %w", err)
			}
			t.closers = append(t.closers, func(context.Context) error { return f.Close() })
			w = f
		}
		if spans, err = stdouttrace.New(stdouttrace.WithWriter(w)); err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
		if metrics, err = stdoutmetric.New(stdoutmetric.WithWriter(w)); err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
	case "otlp":
		topts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(cfg.OTLPEndpoint)}
		mopts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithEndpoint(cfg.OTLPEndpoint)}
		if cfg.Insecure {
			topts, mopts = append(topts, otlptracegrpc.WithInsecure()), append(mopts, otlpmetricgrpc.WithInsecure())
		}
		if spans, err = otlptracegrpc.New(ctx, topts...); err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
		if metrics, err = otlpmetricgrpc.New(ctx, mopts...); err != nil {
			return nil, fmt.Errorf("telemetry: %w", err)
		}
	}
	t.Tracer = sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans), sdktrace.WithResource(res))
	t.Meter = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)), sdkmetric.WithResource(res))
	Install(t.Tracer, t.Meter)
	return t, nil
}

// Install makes tp and mp the global providers (tests install in-memory ones).
func Install(tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider) {
	if tp != nil {
		otel.SetTracerProvider(tp)
	}
	if mp != nil {
		otel.SetMeterProvider(mp)
	}
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
}

// ClientOptions adds the Temporal tracing interceptor and metrics handler to
// client options, so workflows, child workflows and activities carry spans and
// an activity's context is the parent of the spans it makes.
func ClientOptions(o *client.Options) error {
	ti, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: otel.Tracer("clinevo/temporal")})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	o.Interceptors = append(o.Interceptors, interceptor.ClientInterceptor(ti))
	o.MetricsHandler = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{Meter: otel.Meter("clinevo/temporal")})
	return nil
}

// Shutdown flushes and stops the exporters.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	if t.Tracer != nil {
		errs = append(errs, t.Tracer.Shutdown(ctx))
	}
	if t.Meter != nil {
		errs = append(errs, t.Meter.Shutdown(ctx))
	}
	for _, c := range t.closers {
		errs = append(errs, c(ctx))
	}
	return errors.Join(errs...)
}
