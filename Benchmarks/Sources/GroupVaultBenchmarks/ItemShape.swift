/// How a group's items spread over services and accounts: a lookup's cost can depend on it
/// (an index on one attribute serves one shape and not another), so the lookup figures take each.
enum ItemShape: String, CaseIterable {
    /// Many accounts under one service: an app's logins to its own server.
    case manyAccountsOneService = "many accounts under one service"
    /// One account across many services: one user's tokens for many servers.
    case oneAccountManyServices = "one account across many services"
    /// Both: 100 services, the accounts spread over them.
    case mixed = "mixed: 100 services, many accounts each"

    /// A short name for file and keyring names.
    var slug: String {
        switch self {
        case .manyAccountsOneService: "one-service"
        case .oneAccountManyServices: "one-account"
        case .mixed: "mixed"
        }
    }

    /// The service of item `index`.
    func service(_ index: Int) -> String {
        switch self {
        case .manyAccountsOneService: "bench.example.com"
        case .oneAccountManyServices: "service-\(index).example.com"
        case .mixed: "service-\(index % 100).example.com"
        }
    }

    /// The account of item `index`; with ``service(_:)``, unique to it.
    func account(_ index: Int) -> String {
        switch self {
        case .manyAccountsOneService: "account-\(index)"
        case .oneAccountManyServices: "bench-account"
        case .mixed: "account-\(index / 100)"
        }
    }
}
