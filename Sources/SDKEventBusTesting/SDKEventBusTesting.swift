// The testing library is layered as the products are: what the tests of code on the core alone need
// (the event recorder, the bounded waits, the catalog conformance check) is `SDKEventBusCoreTesting`,
// on the core alone, and this module adds the configuration's doubles and the wire form's check on
// top of every product. It re-exports the core's part, so that `import SDKEventBusTesting` gives a
// test every name of both, as it gave them all before the split.

@_exported public import SDKEventBusCoreTesting
