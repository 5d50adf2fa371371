import WorkbenchModuleAPI

extension SessionClock {
  /// The services a session's modules share, on this clock and `facts`: a live source's events
  /// run as the module that registered it, as its timers do (`acting`).
  func services(facts: SessionFacts) -> SessionServices {
    let services = SessionServices(clock: self, facts: facts, scheduler: scheduler)
    services.actingModule = { self.acting }
    services.asModule = { module, body in
      let outer = self.acting
      self.acting = module
      defer { self.acting = outer }
      body()
    }
    return services
  }
}
