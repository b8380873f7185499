extension Array {
    /// A copy of `elements` in storage of its own size: for tables that shrink after a peak
    /// (`removeLast` keeps the capacity).
    init(shrinking elements: [Element]) {
        self.init()
        reserveCapacity(elements.count)
        append(contentsOf: elements)
    }
}
