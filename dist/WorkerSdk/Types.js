export {};
//# sourceMappingURL=Types.js.map