package static

// view.js and component.js are generated from calc.View and
// templates.Component.
//go:generate go run ./internal/gen
