let channelCommands: [String: FixtureCommand] = [:]
